import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  readKeyedText,
  readStamped,
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

  it("keep text as its bytes under a key, served only to that key and layout", async () => {
    const file = join(dir, "kept.txt");
    const text = 'task   1/3 ⚠ é\n\nsecond line {"not": json}\n';
    await writeKeyedText(file, 2, "k1", text, { stderr: "1 input error\n" });
    const kept = readKeyedText(file, 2, "k1");
    expect(kept?.bytes.toString("utf8")).toBe(text);
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
});
