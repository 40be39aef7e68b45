import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  readKeyed,
  readKeyedBytes,
  readKeyedText,
  readStamped,
  writeKeyed,
  writeKeyedBytes,
  writeKeyedText,
  writeStamped,
} from "../../../src/core/workspace/stamped-cache.js";

const dir = mkdtempSync(join(tmpdir(), "fire-stamped-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("stamped caches", () => {
  it("are trusted only while their bytes are the ones written", async () => {
    const file = join(dir, "cache.json");
    await writeStamped(file, JSON.stringify({ n: 1, text: "é" }));
    expect(readStamped(file)).toEqual({ value: { n: 1, text: "é" }, trusted: true });

    // an edit, even one that keeps the JSON valid, is read but not trusted
    writeFileSync(file, readFileSync(file, "utf8").replace('"n":1', '"n":2'));
    expect(readStamped(file)).toEqual({ value: { n: 2, text: "é" }, trusted: false });

    // rewritten: trusted again; without its stamp: not
    await writeStamped(file, JSON.stringify({ n: 3 }));
    expect(readStamped(file).trusted).toBe(true);
    rmSync(`${file}.sha256`);
    expect(readStamped(file)).toEqual({ value: { n: 3 }, trusted: false });
    expect(() => readStamped(join(dir, "absent.json"))).toThrow();
  });

  it("give a keyed value's JSON bytes only to its key, and keep them under another as they are", async () => {
    const file = join(dir, "keyed.json");
    const value = { clusters: [{ id: "c-1", name: 'é "quoted"' }], n: [1, 2.5] };
    await writeKeyed(file, 3, "k1", value);
    const bytes = readKeyedBytes(file, 3, "k1");
    expect(bytes?.toString("utf8")).toBe(JSON.stringify(value));
    expect([readKeyedBytes(file, 3, "k2"), readKeyedBytes(file, 4, "k1")]).toEqual([
      undefined,
      undefined,
    ]);
    await writeKeyedBytes(file, 3, "k2", bytes!);
    expect(readKeyed(file, 3, "k2")).toEqual(value);
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify({ v: 3, key: "k2", value }));
    // edited (the stamp no longer matches): not served
    writeFileSync(file, readFileSync(file, "utf8").replace("c-1", "c-2"));
    expect(readKeyedBytes(file, 3, "k2")).toBeUndefined();
  });

  it("keep text as its bytes under a key, served only to that key and layout", async () => {
    const file = join(dir, "kept.txt");
    const text = 'task   1/3 ⚠ é\n\nsecond line {"not": json}\n';
    await writeKeyedText(file, 2, "k1", text, { stderr: "1 input error\n" });
    const kept = readKeyedText(file, 2, "k1");
    expect(kept?.bytes.toBuffer().toString("utf8")).toBe(text);
    expect(kept?.meta).toEqual({ stderr: "1 input error\n" });
    expect(readKeyedText(file, 2, "k2")).toBeUndefined(); // another key
    expect(readKeyedText(file, 1, "k1")).toBeUndefined(); // another layout
    // an edited body is not served, nor a file with no header line
    writeFileSync(file, readFileSync(file, "utf8").replace("1/3", "3/3"));
    expect(readKeyedText(file, 2, "k1")).toBeUndefined();
    await writeStamped(file, "no header line");
    expect(readKeyedText(file, 2, "k1")).toBeUndefined();
    expect(readKeyedText(join(dir, "absent.txt"), 2, "k1")).toBeUndefined();
  });

  it("hands a kept text out in chunks, and stops at a change made after it was checked", async () => {
    const file = join(dir, "big.txt");
    // three and a half chunks of the reader's buffer, multi-byte characters across their seams
    const text = "é—ok ".repeat(Math.ceil((3.5 * (1 << 20)) / 8));
    await writeKeyedText(file, 1, "k", text);
    const kept = readKeyedText(file, 1, "k");
    expect(kept?.bytes.size).toBe(Buffer.byteLength(text));
    const chunks: Buffer[] = [];
    for (const c of kept?.bytes.chunks() ?? []) chunks.push(Buffer.from(c));
    expect(chunks.length).toBeGreaterThan(3);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(text);
    // checked, then edited in place before it is handed out: nothing edited comes out (the
    // file dated back, as a cache written earlier is: the edit gives it a new mtime)
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const again = readKeyedText(file, 1, "k");
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from("X"), 0, 1, Buffer.byteLength(text) - 2);
    closeSync(fd);
    const seen: Buffer[] = [];
    expect(() => {
      for (const c of again?.bytes.chunks() ?? []) seen.push(Buffer.from(c));
    }).toThrow(/changed/);
    expect(Buffer.concat(seen).includes("X")).toBe(false);
    // replaced by another write (rename) after the check: the checked file is handed out
    const third = readKeyedText(file, 1, "k");
    await writeKeyedText(file, 1, "k", "other");
    // (the in-place edit above was never stamped: the one checked here is the rewrite's)
    expect(third).toBeUndefined();
    const fourth = readKeyedText(file, 1, "k");
    await writeKeyedText(file, 1, "k", "third");
    expect(fourth?.bytes.toBuffer().toString("utf8")).toBe("other");
  });
});
