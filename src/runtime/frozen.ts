import { join, sep } from "node:path";
import { HOOK_FORM, type HookForm } from "../core/policy/hook-form.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import { readRegularFile } from "../core/regular-file.js";
import { sha256Hex, sha256Json } from "../core/screen/canonical.js";

type Candidate = CompiledPolicy["candidate"];

/**
 * The hook's per-event check of a frozen portfolio, without zod or yaml: the manifest's own
 * hash, then every policy file's SHA-256 and that of the hook form (`hook.json`: the linear
 * patterns and prefilters, made when frozen), and what is evaluated is parsed from exactly
 * those verified bytes (the hook form; for an older portfolio, the policy files). Undefined when anything does
 * not verify or is unexpected: the caller then runs the full verifier, which names the file
 * and the problem. No cache is consulted, so nothing the agent can write (state folder,
 * portfolio cache) changes the rules enforced.
 */
export function verifiedFrozenPortfolio(
  dir: string,
):
  | { form: HookForm; policies?: undefined }
  | { form?: undefined; policies: { file: string; candidate: Candidate }[] }
  | undefined {
  try {
    const manifest = JSON.parse(readRegularFile(join(dir, "manifest.json"), "utf8")) as {
      kind?: unknown;
      manifestHash?: unknown;
      hook?: { file?: unknown; sha256?: unknown };
      policies?: { file?: unknown; sha256?: unknown }[];
    };
    if (manifest?.kind !== "fire-portfolio" || !Array.isArray(manifest.policies)) return undefined;
    const { manifestHash, ...rest } = manifest;
    if (typeof manifestHash !== "string" || manifestHash !== sha256Json(rest)) return undefined;
    if (manifest.policies.length === 0) return undefined;
    if (manifest.hook !== undefined) {
      // every frozen file still matches, as the full verifier demands, though only the hook
      // form is parsed: a portfolio edited anywhere is rejected, never half-trusted
      for (const p of manifest.policies) if (!verifiedBytes(dir, p)) return undefined;
      const bytes = verifiedBytes(dir, manifest.hook);
      const form = bytes && (JSON.parse(bytes.toString("utf8")) as HookForm);
      if (form?.format !== HOOK_FORM || !Array.isArray(form.policies)) return undefined;
      const policies = form.policies.map((p) => ({ ...p, file: inside(dir, p.file) }));
      return { form: { ...form, policies } };
    }
    const out: { file: string; candidate: Candidate }[] = [];
    for (const p of manifest.policies) {
      const bytes = verifiedBytes(dir, p);
      if (!bytes) return undefined;
      const candidate = JSON.parse(bytes.toString("utf8")) as Candidate;
      if (typeof candidate !== "object" || candidate === null) return undefined;
      out.push({ file: inside(dir, p.file as string) as string, candidate });
    }
    return { policies: out };
  } catch {
    return undefined;
  }
}

/** The bytes of a manifest-listed file when its SHA-256 matches, else undefined. */
function verifiedBytes(
  dir: string,
  entry: { file?: unknown; sha256?: unknown },
): Buffer | undefined {
  if (typeof entry.file !== "string" || typeof entry.sha256 !== "string") return undefined;
  const file = inside(dir, entry.file);
  if (!file) return undefined;
  const bytes = readRegularFile(file);
  return sha256Hex(bytes) === entry.sha256 ? bytes : undefined;
}

/** A portfolio-relative path as a path inside `dir`; undefined if it would leave it. */
function inside(dir: string, rel: string | undefined): string | undefined {
  if (typeof rel !== "string" || rel.startsWith("/") || rel.split(/[\\/]/).includes(".."))
    return undefined;
  return join(dir, rel.split("/").join(sep));
}
