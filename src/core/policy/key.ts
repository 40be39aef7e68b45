/** The key that names one version of a policy everywhere: `id@version`. */
export function policyKey(p: { readonly id: string; readonly version: number | string }): string {
  return `${p.id}@${p.version}`;
}
