import { join, sep } from "node:path";
import type { CompiledPolicy } from "../core/policy/types.js";
import { readRegularFile } from "../core/regular-file.js";
import { sha256Hex, sha256Json } from "../core/screen/canonical.js";

/**
 * The hook's per-event check of a frozen portfolio, without zod or yaml: the manifest's own
 * hash, then each policy file's SHA-256 against the manifest, and the policies are parsed
 * from exactly those verified bytes (canonical JSON, validated when frozen). Undefined when
 * anything does not verify or is unexpected: the caller then runs the full verifier, which
 * names the file and the problem. No cache is consulted, so nothing the agent can write
 * (state folder, portfolio cache) changes the rules enforced.
 */
export function verifiedFrozenCandidates(
  dir: string,
): { file: string; candidate: CompiledPolicy["candidate"] }[] | undefined {
  try {
    const manifest = JSON.parse(readRegularFile(join(dir, "manifest.json"), "utf8")) as {
      kind?: unknown;
      manifestHash?: unknown;
      policies?: { file?: unknown; sha256?: unknown }[];
    };
    if (manifest?.kind !== "fire-portfolio" || !Array.isArray(manifest.policies)) return undefined;
    const { manifestHash, ...rest } = manifest;
    if (typeof manifestHash !== "string" || manifestHash !== sha256Json(rest)) return undefined;
    if (manifest.policies.length === 0) return undefined;
    const out: { file: string; candidate: CompiledPolicy["candidate"] }[] = [];
    for (const p of manifest.policies) {
      if (typeof p.file !== "string" || typeof p.sha256 !== "string") return undefined;
      if (p.file.startsWith("/") || p.file.split(/[\\/]/).includes("..")) return undefined;
      const file = join(dir, p.file.split("/").join(sep));
      const bytes = readRegularFile(file);
      if (sha256Hex(bytes) !== p.sha256) return undefined;
      const candidate = JSON.parse(bytes.toString("utf8")) as CompiledPolicy["candidate"];
      if (typeof candidate !== "object" || candidate === null) return undefined;
      out.push({ file, candidate });
    }
    return out;
  } catch {
    return undefined;
  }
}
