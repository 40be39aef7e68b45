import { join } from "node:path";
import { describeZodIssues } from "../errors.js";
import { policyKey } from "../policy/key.js";
import { compileCandidateText, lineOf } from "../policy/load.js";
import type { CompiledPolicy } from "../policy/types.js";
import { readRegularFile } from "../regular-file.js";
import { sha256Hex, sha256Json } from "../screening/canonical.js";
import { MANIFEST_FILE, ManifestShape, type PortfolioManifest } from "./manifest.js";

/** A frozen portfolio that fails verification; the message names the file. */
export class PortfolioIntegrityError extends Error {}

/** SHA-256 (hex) of a frozen file's bytes. */
export const sha256 = sha256Hex;

export function manifestHashOf(m: Omit<PortfolioManifest, "manifestHash">): string {
  const { manifestHash: _x, ...rest } = m as PortfolioManifest;
  return sha256Json(rest);
}

function fail(file: string, why: string): never {
  throw new PortfolioIntegrityError(`${file}: ${why}`);
}

/** Reads and checks the manifest itself (shape and manifest hash). */
export function readManifest(dir: string): PortfolioManifest {
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  let raw: unknown;
  try {
    text = readRegularFile(file, "utf8");
    raw = JSON.parse(text);
  } catch (e) {
    fail(file, `cannot read the portfolio manifest: ${(e as Error).message}`);
  }
  const head = raw as { kind?: unknown; policies?: unknown } | null;
  if (head?.kind !== "fire-portfolio" || !Array.isArray(head.policies))
    fail(file, "not a fire portfolio manifest (expected kind fire-portfolio and a policies list)");
  const r = ManifestShape.safeParse(raw);
  if (!r.success) {
    const line = lineOf(text, r.error.issues[0]?.path ?? []);
    fail(line === undefined ? file : `${file}:${line}`, describeZodIssues(r.error.issues));
  }
  const m = raw as PortfolioManifest;
  if (m.manifestHash !== manifestHashOf(m))
    fail(file, "manifest hash does not match its content (the manifest was edited after freezing)");
  return m;
}

/**
 * Loads a frozen portfolio: the manifest hash, then every policy file's SHA-256, must match;
 * a mismatch fails naming the file. Every pattern is admitted again (pattern safety): a
 * forged portfolio can carry hashes recomputed over an unsafe pattern.
 */
export function loadFrozenPortfolio(dir: string): {
  manifest: PortfolioManifest;
  policies: CompiledPolicy[];
} {
  const manifest = readManifest(dir);
  const policies: CompiledPolicy[] = [];
  for (const p of manifest.policies) {
    const file = join(dir, p.file);
    let bytes: Buffer;
    try {
      bytes = readRegularFile(file);
    } catch (e) {
      fail(file, `frozen policy missing: ${(e as Error).message}`);
    }
    if (sha256(bytes) !== p.sha256)
      fail(
        file,
        `SHA-256 does not match the portfolio manifest (frozen policy ${policyKey(p)} was modified)`,
      );
    // patterns are admitted again: hashes prove the files unchanged, not who wrote them
    const r = compileCandidateText(bytes.toString("utf8"), file);
    if (!r.policy) fail(file, r.errors[0]?.message ?? "invalid frozen policy");
    policies.push(r.policy);
  }
  if (policies.length === 0) fail(join(dir, MANIFEST_FILE), "the portfolio has no policies");
  if (manifest.hook) {
    const file = join(dir, manifest.hook.file);
    let bytes: Buffer;
    try {
      bytes = readRegularFile(file);
    } catch (e) {
      fail(file, `the portfolio's hook form is missing: ${(e as Error).message}`);
    }
    if (sha256(bytes) !== manifest.hook.sha256)
      fail(file, "SHA-256 does not match the portfolio manifest (the hook form was modified)");
  }
  return { manifest, policies };
}
