import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readStamped, writeStamped } from "../../../src/core/workspace/stamped-cache.js";

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
});
