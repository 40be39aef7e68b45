/**
 * POSIX shell quoting for the commands fire prints or installs: a plain word stays as it is,
 * anything else goes in single quotes with embedded quotes escaped (`'\''`).
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
