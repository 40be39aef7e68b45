import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  readCandidateEntries,
  readCandidateEntriesInTurns,
} from "../../../src/core/lifecycle/entries.js";
import { REPO_ROOT } from "../../helpers/paths.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-entries-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("readCandidateEntries", () => {
  it("is empty for a workspace without candidates/", () => {
    expect(readCandidateEntries(dir)).toEqual({ entries: [], errors: [] });
  });

  it("compiles every file; a bad file stays an entry with its text and errors", async () => {
    await cp(join(REPO_ROOT, "candidates/reference"), join(dir, "candidates/reference"), {
      recursive: true,
    });
    await writeFile(join(dir, "candidates/bad.yaml"), "id: bad\nversion: nope\n");
    const { entries, errors } = readCandidateEntries(dir);
    expect(entries.map((e) => e.rel)).toEqual([
      "candidates/bad.yaml",
      "candidates/reference/binary-equivalence.yaml",
      "candidates/reference/database-evidence.yaml",
      "candidates/reference/dataset-token-accounting.yaml",
      "candidates/reference/deployment-preservation.yaml",
      "candidates/reference/exact-replacement.yaml",
      "candidates/reference/latex-final-log.yaml",
      "candidates/reference/multi-answer-enumeration.yaml",
      "candidates/reference/service-persistence.yaml",
    ]);
    const bad = entries[0]!;
    expect(bad.policy).toBeUndefined();
    expect(bad.text).toBe("id: bad\nversion: nope\n");
    expect(bad.errors.length).toBeGreaterThan(0);
    expect(errors).toEqual(bad.errors);
    expect(entries[8]!.policy?.id).toBe("ref-service-persistence");
    expect(entries.slice(1).every((e) => e.policy && e.errors.length === 0)).toBe(true);
  });
});

describe("readCandidateEntriesInTurns", () => {
  const copyReference = () =>
    cp(join(REPO_ROOT, "candidates/reference"), join(dir, "candidates/reference"), {
      recursive: true,
    });

  it("gives the same entries as the one-go read, with a turn of the event loop per file", async () => {
    await copyReference();
    await writeFile(join(dir, "candidates/bad.yaml"), "id: bad\nversion: nope\n");
    const once = readCandidateEntries(dir);
    // a chain of immediates counts the turns the read left to other work
    let turns = 0;
    let stop = false;
    const tick = () => {
      if (stop) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const inTurns = await readCandidateEntriesInTurns(dir);
    stop = true;
    expect(inTurns.entries.map((e) => e.rel)).toEqual(once.entries.map((e) => e.rel));
    expect(inTurns.entries.map((e) => e.text)).toEqual(once.entries.map((e) => e.text));
    expect(inTurns.entries.map((e) => e.policy?.id)).toEqual(once.entries.map((e) => e.policy?.id));
    expect(inTurns.errors.map(String)).toEqual(once.errors.map(String));
    expect(turns).toBeGreaterThanOrEqual(once.entries.length);
  });

  it("stops at the next file when its signal is aborted", async () => {
    await copyReference();
    const ac = new AbortController();
    const read = readCandidateEntriesInTurns(dir, ac.signal);
    ac.abort();
    await expect(read).rejects.toThrow(/abort/i);
  });
});
