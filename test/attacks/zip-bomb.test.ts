import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { constants, crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readZipLog } from "../../src/core/ingest/inspect.js";
import { DEFAULT_INGEST_OPTIONS } from "../../src/core/ingest/types.js";
import { ZIP_ENTRY_CAP, zipEntries } from "../../src/core/ingest/zip.js";
import { collect } from "../core/ingest/collect.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Issue 27 point 6: a zip bomb in an Inspect `.eval` log (1.5 MB that took 1.65 GB and 13.6 s,
 * and lost the 6 good samples beside it). Inflation is bounded per entry and per file; an
 * entry over a cap is reported with file and entry, the good samples still load. The logs
 * are the fixture's real entries plus bombs, written by a minimal zip writer below.
 */
const FIXTURE = resolve(
  REPO_ROOT,
  "test/fixtures/inspect/2026-01-15T10-00-00+00-00_fix-tests_hV2nJ6kL9mP3qR5sT8uW1x.eval",
);
const MB = 1024 * 1024;

interface Raw {
  name: string;
  data: Buffer; // raw deflate
  size: number; // declared
  crc: number;
}

/** `mb` MiB of spaces as raw deflate, built from one flushed chunk repeated (cheap to make). */
function spaces(mb: number, declared = mb * MB): Omit<Raw, "name"> {
  const plain = Buffer.alloc(MB, 0x20);
  const chunk = deflateRawSync(plain, { finishFlush: constants.Z_SYNC_FLUSH });
  let crc = 0;
  for (let i = 0; i < mb; i++) crc = crc32(plain, crc);
  const data = Buffer.concat([...Array.from({ length: mb }, () => chunk), Buffer.from([3, 0])]);
  return { data, size: declared, crc };
}

/** The fixture's entries, recompressed as they are. */
function fixtureEntries(): Raw[] {
  const zip = readFileSync(FIXTURE);
  return zipEntries(zip).map((e) => {
    const at = e.localOffset;
    const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
    const plain = inflateRawSync(zip.subarray(start, start + e.compressedSize));
    return { name: e.name, data: deflateRawSync(plain), size: plain.length, crc: crc32(plain) };
  });
}

function writeZip(file: string, entries: Raw[]): string {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(8, 8);
    h.writeUInt32LE(e.crc >>> 0, 14);
    h.writeUInt32LE(e.data.length, 18);
    h.writeUInt32LE(e.size, 22);
    h.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(e.crc >>> 0, 16);
    c.writeUInt32LE(e.data.length, 20);
    c.writeUInt32LE(e.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(h, name, e.data);
    centrals.push(c, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(file, Buffer.concat([...locals, cd, end]));
  return file;
}

const dir = mkdtempSync(join(tmpdir(), "fire-attack-6-"));
const sample = (id: string) => `samples/${id}_epoch_1.json`;

describe("attack 6: a zip bomb in an Inspect .eval log", () => {
  it("an entry over the cap per entry is reported with file and entry; the 6 good samples load", async () => {
    const file = writeZip(join(dir, "bomb.eval"), [
      ...fixtureEntries(),
      { name: sample("zz-bomb"), ...spaces(ZIP_ENTRY_CAP / MB + 1) },
    ]);
    const t0 = Date.now();
    const got = await collect([file]);
    expect(got.attempts).toHaveLength(6);
    expect(got.errors).toEqual([
      `${file}/${sample("zz-bomb")}: inflates to more than ${ZIP_ENTRY_CAP} bytes (the cap per entry): not read`,
    ]);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("an entry that declares a small size is still cut at the cap", () => {
    const file = writeZip(join(dir, "lying.eval"), [
      ...fixtureEntries(),
      { name: sample("zz-bomb"), ...spaces(8, 100) },
    ]);
    const items = [...readZipLog(file, readFileSync(file), DEFAULT_INGEST_OPTIONS, caps)];
    expect(items.filter((i) => i.type === "attempt")).toHaveLength(6);
    const errors = items.flatMap((i) => (i.type === "error" ? [i.error.format()] : []));
    expect(errors).toEqual([
      `${file}/${sample("zz-bomb")}: inflates to more than ${MB} bytes (the cap per entry): not read`,
    ]);
  });

  it("entries each under the cap share one budget per file", () => {
    const bombs = ["zz-b1", "zz-b2", "zz-b3", "zz-b4", "zz-b5"].map((id) => ({
      name: sample(id),
      ...spaces(1, MB - 1024),
    }));
    const file = writeZip(join(dir, "many.eval"), [...fixtureEntries(), ...bombs]);
    const items = [...readZipLog(file, readFileSync(file), DEFAULT_INGEST_OPTIONS, caps)];
    expect(items.filter((i) => i.type === "attempt")).toHaveLength(6);
    const errors = items.flatMap((i) => (i.type === "error" ? [i.error.format()] : []));
    // the good samples come first (id order) and fit; of the bombs, what passes the per-file
    // cap is read (and is no JSON), the rest is refused unread
    expect(errors.filter((e) => e.includes("(the cap per file)")).length).toBeGreaterThanOrEqual(1);
    expect(errors.at(-1)).toBe(
      `${file}/${sample("zz-b5")}: the archive's entries inflate to more than ${4 * MB} bytes in all (the cap per file): not read`,
    );
  });
});

const caps = { entry: MB, file: 4 * MB };
