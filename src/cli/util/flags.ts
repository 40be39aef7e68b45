/**
 * The flag that sets each request field core names (core's errors and findings name request
 * fields, never flags; the CLI names the flag). One table for the CLI's hints.
 */
export const FIELD_FLAGS: Readonly<Record<string, string>> = {
  copyFrom: "--copy-from",
  vars: "--var",
  command: "--command",
  tasks: "--tasks",
  name: "--name",
  portfolio: "--portfolio",
  harborBin: "--harbor-bin",
  env: "--env",
  delivery: "--delivery",
  adapter: "--adapter",
  runner: "--runner",
  scope: "--user",
};

/** `text (--flag)` when the field has a flag, else the text. */
export function withFlag(text: string, field: string | undefined): string {
  const flag = field === undefined ? undefined : FIELD_FLAGS[field];
  return flag ? `${text} (${flag})` : text;
}
