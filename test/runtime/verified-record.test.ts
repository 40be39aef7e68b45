import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifiedFrozenPortfolio } from "../../src/runtime/frozen.js";
import { loadPortfolio } from "../../src/runtime/portfolio.js";
import { verifiedRecordDir } from "../../src/runtime/verified-record.js";
import { denyCandidate, writeFrozen } from "../attacks/helpers.js";

/** A frozen portfolio with its hook form, and a record folder of its own. */
function setup() {
  const root = mkdtempSync(join(tmpdir(), "fire-verified-"));
  const dir = writeFrozen(
    join(root, "portfolios/p"),
    [denyCandidate("rm", "\\brm\\s+-rf\\b"), denyCandidate("dd", "\\bdd\\s+if=")],
    { hookForm: true },
  );
  return { dir, records: join(root, "records") };
}

/** Three seconds on: the files are past the racy window. */
const later = () => Date.now() + 3_000;

/** Rewrites a file's bytes and puts its size and mtime back (`touch -r`): only ctime moves. */
function sameSizeEdit(file: string, from: string, to: string) {
  const before = statSync(file, { bigint: true });
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  expect(to.length).toBe(from.length);
  const ref = `${file}.times`;
  execFileSync("touch", ["-r", file, ref]);
  writeFileSync(file, text.replace(from, to));
  execFileSync("touch", ["-r", ref, file]);
  const after = statSync(file, { bigint: true });
  expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
  expect(after.ctimeNs).not.toBe(before.ctimeNs);
}

describe("a frozen portfolio's verification record", () => {
  it("skips the hashes only while every file keeps the identity it verified with", () => {
    const { dir, records } = setup();
    const first = verifiedFrozenPortfolio(dir, records, later());
    expect(first?.checked).toBe("hashes");
    expect(readdirSync(records)).toHaveLength(1);
    const second = verifiedFrozenPortfolio(dir, records, later());
    expect(second?.checked).toBe("record");
    expect(second?.form).toEqual(first?.form);
    // the same bytes written again: a new ctime, so hashed again (and still good)
    const policy = join(dir, "policies/rm@1.json");
    writeFileSync(policy, readFileSync(policy));
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("hashes");
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("record");
  });

  it("rejects a hook form edited after it was recorded, though size and mtime are restored", () => {
    const { dir, records } = setup();
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("hashes");
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("record");
    sameSizeEdit(join(dir, "hook.json"), "rm\\\\s+-rf", "rm\\\\s+-rX");
    expect(verifiedFrozenPortfolio(dir, records, later())).toBeUndefined();
  });

  it("rejects a policy file edited after it was recorded, though only the hook form is parsed", () => {
    const { dir, records } = setup();
    verifiedFrozenPortfolio(dir, records, later());
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("record");
    sameSizeEdit(join(dir, "policies/dd@1.json"), "if=", "of=");
    expect(verifiedFrozenPortfolio(dir, records, later())).toBeUndefined();
  });

  it("never records files changed within the racy window", () => {
    const { dir, records } = setup();
    expect(verifiedFrozenPortfolio(dir, records)?.checked).toBe("hashes");
    expect(verifiedFrozenPortfolio(dir, records)?.checked).toBe("hashes");
    expect(() => readdirSync(records)).toThrow();
  });

  it("a record for other files, a corrupt or an unwritable record folder only costs the hashes", () => {
    const { dir, records } = setup();
    verifiedFrozenPortfolio(dir, records, later());
    const [name] = readdirSync(records);
    writeFileSync(join(records, name as string), JSON.stringify({ key: "forged" }));
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("hashes");
    writeFileSync(join(records, name as string), "\0garbage");
    expect(verifiedFrozenPortfolio(dir, records, later())?.checked).toBe("hashes");
    const file = join(records, "not-a-folder");
    writeFileSync(file, "");
    expect(verifiedFrozenPortfolio(dir, file, later())?.checked).toBe("hashes");
    expect(verifiedFrozenPortfolio(dir, undefined, later())?.checked).toBe("hashes");
  });

  it("lives in the user's state folder, outside any project, unless named or off", () => {
    expect(verifiedRecordDir({ HOME: "/home/u" })).toBe("/home/u/.local/state/fire/verified");
    expect(verifiedRecordDir({ HOME: "/home/u", XDG_STATE_HOME: "/s" })).toBe("/s/fire/verified");
    expect(verifiedRecordDir({ HOME: "/home/u", FIRE_VERIFIED_DIR: "/r" })).toBe("/r");
    expect(verifiedRecordDir({ HOME: "/home/u", FIRE_VERIFIED_DIR: "off" })).toBeUndefined();
    expect(verifiedRecordDir({})).toBeUndefined();
  });
});

describe("a frozen portfolio kept by a process that answers many events", () => {
  it("reuses what it compiled while every file keeps its identity, and drops it at an edit", async () => {
    const { dir, records } = setup();
    const state = join(dir, "..", "state");
    const first = await loadPortfolio(dir, state, records, undefined, later()); // hashed
    const second = await loadPortfolio(dir, state, records, undefined, later()); // its record
    expect(second).not.toBe(first);
    const third = await loadPortfolio(dir, state, records, undefined, later());
    expect(third).toBe(second); // kept: not read, parsed nor compiled again
    // another record folder, or none (every event hashes): not kept
    expect(await loadPortfolio(dir, state, `${records}-2`, undefined, later())).not.toBe(second);
    expect(await loadPortfolio(dir, state, undefined, undefined, later())).not.toBe(second);
    expect(await loadPortfolio(dir, state, records, undefined, later())).toBe(second);
    // an edit that restores size and mtime still moves the ctime: verified again, rejected
    sameSizeEdit(join(dir, "policies/dd@1.json"), "if=", "of=");
    await expect(loadPortfolio(dir, state, records, undefined, later())).rejects.toThrow(
      /frozen portfolio rejected/,
    );
  });

  it("keeps nothing while a file is within the racy window", async () => {
    const { dir, records } = setup();
    const state = join(dir, "..", "state");
    await loadPortfolio(dir, state, records, undefined, later());
    const recorded = await loadPortfolio(dir, state, records, undefined, later());
    expect(await loadPortfolio(dir, state, records)).not.toBe(recorded); // now: files young
  });
});
