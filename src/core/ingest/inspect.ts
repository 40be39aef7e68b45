import { readFileSync } from "node:fs";
import { InputError } from "../errors.js";
import { sampleAttempt } from "./inspect-sample.js";
import { INSPECT_JSON_HEAD, InspectHeader, InspectSample } from "./inspect-schema.js";
import { ioReason, parseJsonLoaded, validate } from "./json-file.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";
import { BoundedZip, type ZipCaps, type ZipEntry, zipEntries } from "./zip.js";

const HEADER_WHAT = "an Inspect AI eval log (version, status, eval{task, model})";
const SAMPLE_WHAT = "an Inspect AI eval sample (id, epoch, input)";
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const SAMPLE_ENTRY = /^samples\/[^/]+_epoch_\d+\.json$/;

/**
 * A `.eval` log by content: a zip whose first entry is one Inspect writes first
 * (`_journal/start.json`, or `header.json` / a sample in a rewritten log).
 */
export function isInspectZip(head: Buffer): boolean {
  if (head.length < 30 || !head.subarray(0, 4).equals(ZIP_MAGIC)) return false;
  const nameLength = head.readUInt16LE(26);
  const name = head.subarray(30, 30 + nameLength).toString("utf8");
  return name === "_journal/start.json" || name === "header.json" || SAMPLE_ENTRY.test(name);
}

function* samplesOf(
  h: InspectHeader,
  raw: { value: unknown; file: string; line?: number; where?: string }[],
  path: string,
  options: IngestOptions,
): Generator<IngestItem> {
  for (const r of raw) {
    const v = validate(r.file, r.value, InspectSample, SAMPLE_WHAT, r.line);
    if (!v.ok) {
      const e = v.error;
      const error = r.where ? new InputError(e.file, e.line, `${r.where}: ${e.message}`) : e;
      yield { type: "error", error };
      continue;
    }
    yield { type: "attempt", attempt: sampleAttempt(h, v.value, path, options) };
  }
}

/** A `.json` log: the whole EvalLog in one document; each sample is checked on its own. */
function* readJsonLog(path: string, text: string, options: IngestOptions): Generator<IngestItem> {
  const doc = parseJsonLoaded(path, text);
  if (!doc.ok) return yield { type: "error", error: doc.error };
  const h = validate(path, doc.value, InspectHeader, HEADER_WHAT);
  if (!h.ok) return yield { type: "error", error: h.error };
  const raw = (h.value.samples ?? []).map((value, i) => ({
    value,
    file: path,
    where: `samples[${i}]`,
  }));
  yield* samplesOf(h.value, raw, path, options);
}

/**
 * A `.eval` log (a zip): `header.json`, else `_journal/start.json` for a log still
 * being written, and one entry per sample. An entry's errors name it as
 * `<file>/<entry>`, with the line of a JSON syntax error. Inflation is bounded (zip.ts: per
 * entry and per file): an entry over a cap is an error naming it, the other samples load.
 */
export function* readZipLog(
  path: string,
  zip: Buffer,
  options: IngestOptions,
  caps?: ZipCaps,
): Generator<IngestItem> {
  let entries: ZipEntry[];
  try {
    entries = zipEntries(zip);
  } catch (err) {
    const why = `not a readable zip archive (${(err as Error).message})`;
    return yield { type: "error", error: new InputError(path, undefined, why) };
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  const bounded = new BoundedZip(zip, caps);
  const read = (name: string): { text: string } | { error: InputError } => {
    const r = bounded.read(byName.get(name) as ZipEntry);
    return "why" in r
      ? { error: new InputError(`${path}/${name}`, undefined, r.why) }
      : { text: r.bytes.toString("utf8") };
  };
  const headerName = byName.has("header.json") ? "header.json" : "_journal/start.json";
  if (!byName.has(headerName)) {
    const why = "expected an Inspect AI .eval log: no header.json or _journal/start.json";
    return yield { type: "error", error: new InputError(path, undefined, why) };
  }
  const headerFile = `${path}/${headerName}`;
  const header = read(headerName);
  if ("error" in header) return yield { type: "error", error: header.error };
  const doc = parseJsonLoaded(headerFile, header.text);
  if (!doc.ok) return yield { type: "error", error: doc.error };
  const h = validate(headerFile, doc.value, InspectHeader, HEADER_WHAT);
  if (!h.ok) return yield { type: "error", error: h.error };
  const sampleNames = [...byName.keys()].filter((n) => SAMPLE_ENTRY.test(n)).sort(bySampleOrder);
  for (const name of sampleNames) {
    if (options.signal?.aborted) return;
    const file = `${path}/${name}`;
    const got = read(name);
    if ("error" in got) {
      yield { type: "error", error: got.error };
      continue;
    }
    const parsed = parseJsonLoaded(file, got.text);
    if (!parsed.ok) {
      yield { type: "error", error: parsed.error };
      continue;
    }
    yield* samplesOf(h.value, [{ value: parsed.value, file }], path, options);
  }
}

/** `samples/<id>_epoch_<n>.json` in id then epoch order (numeric ids numerically). */
function bySampleOrder(a: string, b: string): number {
  const key = (n: string) => /^samples\/(.+)_epoch_(\d+)\.json$/.exec(n)!;
  const [, ia, ea] = key(a);
  const [, ib, eb] = key(b);
  const na = Number(ia);
  const nb = Number(ib);
  const byId = Number.isFinite(na) && Number.isFinite(nb) ? na - nb : ia!.localeCompare(ib!);
  return byId || Number(ea) - Number(eb);
}

/** Inspect AI eval logs, `.eval` (zip) and `.json`: one attempt per sample and epoch. */
export const inspectImporter: Importer = {
  format: "inspect-eval",
  detect: (_path, head, isDirectory) => !isDirectory && INSPECT_JSON_HEAD.test(head),
  detectBinary: (_path, head) => isInspectZip(head),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      return yield { type: "error", error: new InputError(path, undefined, ioReason(err)) };
    }
    if (isInspectZip(buf)) yield* readZipLog(path, buf, options);
    else yield* readJsonLog(path, buf.toString("utf8"), options);
  },
};
