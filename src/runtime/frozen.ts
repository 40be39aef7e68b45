import { join, sep } from "node:path";
import { HOOK_FORM, type HookForm } from "../core/policy/hook-form.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import { readRegularFile } from "../core/regular-file.js";
import { sha256Hex, sha256Json } from "../core/screening/canonical.js";
import {
  hasRecord,
  identityKey,
  readWithIdentity,
  statIdentity,
  writeRecord,
} from "./verified-record.js";

type Candidate = CompiledPolicy["candidate"];

/** What the frozen fast path yields, and how its files were found unchanged. */
export type FrozenRead = (
  | { form: HookForm; policies?: undefined }
  | { form?: undefined; policies: { file: string; candidate: Candidate }[] }
) & {
  /** "hashes": every SHA-256 computed now; "record": the files kept the identity they had when they last verified. */
  checked: "hashes" | "record";
  /**
   * With "record": the files (manifest, hook form, policies) and the identity key their
   * record holds, for a process that keeps what it compiled from them (portfolio.ts).
   */
  identity?: FrozenIdentity;
};

/** A verified frozen portfolio's files and the identity key they verified with. */
export interface FrozenIdentity {
  files: string[];
  key: string;
}

/**
 * The hook's per-event check of a frozen portfolio, without zod or yaml: the manifest's own
 * hash, then every policy file's SHA-256 and that of the hook form (`hook.json`: the linear
 * patterns and prefilters, made when frozen), and what is evaluated is parsed from exactly
 * those verified bytes (the hook form; for an older portfolio, the policy files). Undefined
 * when anything does not verify or is unexpected: the caller then runs the full verifier,
 * which names the file and the problem.
 *
 * With a `recordDir` (verified-record.ts: the user's state folder, outside any project), a
 * portfolio whose every file (manifest, hook form, policies) still has the identity it had
 * when it last verified is not hashed again: same verdict, no node:crypto. Nothing the agent
 * can write in its project (state folder, portfolio cache) changes the rules enforced.
 */
export function verifiedFrozenPortfolio(
  dir: string,
  recordDir?: string,
  nowMs = Date.now(),
  admit?: (form: HookForm) => void,
): FrozenRead | undefined {
  try {
    const m = readWithIdentity(join(dir, "manifest.json"), nowMs);
    const manifest = JSON.parse(m.bytes.toString("utf8")) as Manifest;
    if (manifest?.kind !== "fire-portfolio" || !Array.isArray(manifest.policies)) return undefined;
    if (manifest.policies.length === 0) return undefined;
    if (manifest.hook !== undefined)
      return withHookForm(dir, manifest, manifest.policies, m, recordDir, nowMs, admit);
    if (!manifestVerifies(manifest)) return undefined;
    const out: { file: string; candidate: Candidate }[] = [];
    for (const p of manifest.policies) {
      const bytes = verifiedBytes(dir, p);
      if (!bytes) return undefined;
      const candidate = JSON.parse(bytes.toString("utf8")) as Candidate;
      if (typeof candidate !== "object" || candidate === null) return undefined;
      out.push({ file: inside(dir, p.file as string) as string, candidate });
    }
    return { policies: out, checked: "hashes" };
  } catch {
    return undefined;
  }
}

interface Manifest {
  kind?: unknown;
  manifestHash?: unknown;
  hook?: Entry;
  policies?: Entry[];
}
type Entry = { file?: unknown; sha256?: unknown };
type Identified = { line: string; young: boolean };

/**
 * A portfolio frozen with its hook form: every listed file must still match (a portfolio
 * edited anywhere is rejected, never half-trusted), though only the hook form is parsed.
 */
function withHookForm(
  dir: string,
  manifest: Manifest,
  listed: Entry[],
  m: Identified,
  recordDir: string | undefined,
  nowMs: number,
  admit: ((form: HookForm) => void) | undefined,
): FrozenRead | undefined {
  const hookFile = listedPath(dir, manifest.hook as Entry);
  const policyFiles = listed.map((p) => listedPath(dir, p));
  if (!hookFile || policyFiles.some((f) => !f)) return undefined;
  const h = readWithIdentity(hookFile, nowMs);
  const ids: Identified[] = [m, h, ...policyFiles.map((f) => statIdentity(f as string, nowMs))];
  const key = identityKey(
    dir,
    ids.map((i) => i.line),
  );
  const files = [join(dir, "manifest.json"), hookFile, ...(policyFiles as string[])];
  const recorded = hasRecord(recordDir, dir, key);
  if (!recorded) {
    if (!manifestVerifies(manifest)) return undefined;
    for (const p of listed) if (!verifiedBytes(dir, p)) return undefined;
    if (sha256Hex(h.bytes) !== (manifest.hook as Entry).sha256) return undefined;
  }
  const form = JSON.parse(h.bytes.toString("utf8")) as HookForm;
  if (form?.format !== HOOK_FORM || !Array.isArray(form.policies)) return undefined;
  const policies = form.policies.map((p) => ({ ...p, file: inside(dir, p.file) }));
  if (recorded) return { form: { ...form, policies }, checked: "record", identity: { files, key } };
  const read: FrozenRead = { form: { ...form, policies }, checked: "hashes" };
  // what is recorded is "these files verified AND their patterns were admitted": a forged
  // form that hashes right but holds a refused pattern throws here and is never recorded
  if (admit) {
    try {
      admit(read.form as HookForm);
    } catch {
      return undefined;
    }
  }
  // a file changed within the racy window could change again unseen: not recorded
  if (!ids.some((i) => i.young)) writeRecord(recordDir, dir, key);
  return read;
}

/**
 * Whether `files` still have the identities of `key` (none changed within the racy window):
 * the check of a record, without reading the record or any file's bytes.
 */
export function sameIdentity(dir: string, id: FrozenIdentity, nowMs: number): boolean {
  try {
    const lines: string[] = [];
    for (const f of id.files) {
      const i = statIdentity(f, nowMs);
      if (i.young) return false;
      lines.push(i.line);
    }
    return identityKey(dir, lines) === id.key;
  } catch {
    return false;
  }
}

/** The manifest's own hash covers everything in it but that hash. */
function manifestVerifies(manifest: Manifest): boolean {
  const { manifestHash, ...rest } = manifest;
  return typeof manifestHash === "string" && manifestHash === sha256Json(rest);
}

/** The path of a manifest entry with a file and a hash, inside `dir`; else undefined. */
function listedPath(dir: string, entry: Entry): string | undefined {
  if (typeof entry?.file !== "string" || typeof entry.sha256 !== "string") return undefined;
  return inside(dir, entry.file);
}

/** The bytes of a manifest-listed file when its SHA-256 matches, else undefined. */
function verifiedBytes(
  dir: string,
  entry: { file?: unknown; sha256?: unknown },
): Buffer | undefined {
  const file = listedPath(dir, entry);
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
