import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { initState, step } from "../../../src/core/policy/evaluator.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { deriveSham } from "../../../src/core/policy/sham.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { bash, events, prompt } from "./helpers.js";

const { policies } = loadPolicies([resolve(REPO_ROOT, "candidates/reference")]);
const db = policies.find((p) => p.family === "database-evidence")!.candidate;

describe("deriveSham", () => {
  it("keeps eligibility and trigger timing, turns deny into instruct with generic text of similar length", () => {
    const sham = Candidate.parse(deriveSham(db));
    expect(sham.id).toBe("ref-database-evidence-sham");
    expect(sham.eligibility).toEqual(db.eligibility);
    expect(sham.track).toEqual(db.track);
    const [real] = db.rules;
    const [fake] = sham.rules;
    expect(fake!.action).toBe("instruct");
    expect(fake!.when).toEqual(real!.when);
    expect(fake!.release).toEqual(real!.release);
    expect(fake!.message).not.toMatch(/wal|sqlite|copy|database/i);
    expect(Math.abs(fake!.message.length - real!.message.length)).toBeLessThan(80);

    const evs = events(
      prompt("Recover the rows of the corrupted SQLite database."),
      bash("sqlite3 a.db"),
      bash("cp -a /data /bk"),
      bash("sqlite3 a.db"),
    );
    const fire = (c: Candidate) => {
      const p = compilePolicy(c);
      let s = initState();
      const out: string[] = [];
      for (const e of evs) {
        const r = step([p], s, e);
        out.push(...r.firings.map((f) => `${f.eventIndex}:${f.action}`));
        s = r.state;
      }
      return out;
    };
    expect(fire(db)).toEqual(["1:deny"]);
    expect(fire(sham)).toEqual(["1:instruct"]);
  });

  it("uses the candidate's own sham text when given", () => {
    const sham = deriveSham({ ...db, sham: "Please double-check your work." });
    expect(sham.rules.map((r) => r.message)).toEqual(["Please double-check your work."]);
  });
});
