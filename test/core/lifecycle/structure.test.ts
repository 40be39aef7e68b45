import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addCondition,
  addPattern,
  addTargets,
  copyRule,
  removeUnit,
  unitsAt,
} from "../../../src/core/lifecycle/structure.js";
import { compileCandidateText } from "../../../src/core/policy/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const FILE = join(REPO_ROOT, "candidates/reference/deployment-preservation.yaml");
const TEXT = readFileSync(FILE, "utf8");
const compiled = (text: string) => {
  const r = compileCandidateText(text, FILE);
  expect(r.errors.map((e) => e.format())).toEqual([]);
  return r.policy!.candidate;
};
const ok = (r: ReturnType<typeof addPattern>) => {
  if ("error" in r) throw new Error(r.error);
  return r;
};

describe("structural edits of a candidate", () => {
  it("names what can be removed around a field, innermost first", () => {
    expect(unitsAt(["rules", 0, "when", "command", "pattern"]).map((u) => u.label)).toEqual([
      "condition rules.0.when.command",
      "condition rules.0.when",
      "rule rules.0",
    ]);
    expect(
      unitsAt(["track", 1, "when", "all", 0, "not", "output", "pattern"]).map((u) => u.label),
    ).toEqual([
      "condition track.1.when.all.0.not.output",
      "condition track.1.when.all.0.not",
      "condition track.1.when.all.0",
      "condition track.1.when",
      "tracking rule track.1",
    ]);
    expect(unitsAt(["eligibility", "anyOf", 2, "flags"]).map((u) => u.label)).toEqual([
      "pattern eligibility.anyOf.2",
    ]);
    expect(unitsAt(["behavior", "flag"]).map((u) => u.label)).toEqual(["condition behavior.flag"]);
  });

  it("adds and removes an eligibility pattern, keeping comments and anchors", () => {
    const added = ok(addPattern(TEXT, FILE, ["eligibility", "anyOf"], "\\bship it\\b"));
    expect(compiled(added.text).eligibility.anyOf).toHaveLength(4);
    expect(added.focus).toEqual(["eligibility", "anyOf", 3]);
    expect(added.text).toContain("# httpie is");
    expect(added.text).toContain("*destructive");
    const removed = ok(
      removeUnit(added.text, FILE, unitsAt(["eligibility", "anyOf", 0, "pattern"])[0]!),
    );
    const anyOf = compiled(removed.text).eligibility.anyOf;
    expect(anyOf).toHaveLength(3);
    expect(anyOf.at(-1)).toBe("\\bship it\\b");
    expect(addPattern(TEXT, FILE, ["eligibility", "anyOf"], "  ")).toHaveProperty("error");
  });

  it("adds a condition typed as YAML: a new key is set, a key already there goes under all", () => {
    const target = addTargets(["rules", 0, "message"], 1).find((t) => t.kind === "condition")!;
    expect(target.path).toEqual(["rules", 0, "when"]);
    const one = ok(addCondition(TEXT, FILE, target.path, "status: ok"));
    expect(compiled(one.text).rules[0]!.when).toMatchObject({ flag: "deployed", status: "ok" });
    const two = ok(addCondition(one.text, FILE, target.path, "flag: probing"));
    expect(compiled(two.text).rules[0]!.when?.all).toEqual([{ flag: "probing" }]);
    expect(two.focus).toEqual(["rules", 0, "when", "all", 0, "flag"]);
    // the whole all-item goes, then the emptied all list too
    const back = ok(
      removeUnit(two.text, FILE, unitsAt(["rules", 0, "when", "all", 0, "flag"])[1]!),
    );
    expect(compiled(back.text).rules[0]!.when).not.toHaveProperty("all");
    // a condition the schema refuses is an error naming the atom, and nothing changes
    const bad = addCondition(TEXT, FILE, target.path, "exitCode: soon");
    expect(bad).toHaveProperty("error");
    expect((bad as { error: string }).error).toMatch(/^condition: exitCode/);
    expect(addCondition(TEXT, FILE, target.path, "flag: [unclosed")).toHaveProperty("error");
  });

  it("copies a rule under a new id, and never removes the last rule", () => {
    const copied = ok(copyRule(TEXT, FILE, ["rules", 0]));
    const rules = compiled(copied.text).rules;
    expect(rules.map((r) => r.id)).toEqual(["keep-deployment", "keep-deployment-2"]);
    expect(rules[1]!.when).toEqual(rules[0]!.when);
    expect(copied.focus).toEqual(["rules", 1, "id"]);
    const rule = unitsAt(["rules", 1, "message"]).find((u) => u.kind === "rule")!;
    expect(compiled(ok(removeUnit(copied.text, FILE, rule)).text).rules).toHaveLength(1);
    const last = unitsAt(["rules", 0, "id"]).find((u) => u.kind === "rule")!;
    expect(removeUnit(TEXT, FILE, last)).toHaveProperty("error");
  });

  it("edits a JSON candidate as JSON", () => {
    const json = JSON.stringify(compiled(TEXT), null, 2);
    const file = FILE.replace(/\.yaml$/, ".json");
    const r = ok(addPattern(json, file, ["eligibility", "noneOf"], "\\bdry run\\b"));
    expect(JSON.parse(r.text).eligibility.noneOf).toEqual(["\\bdry run\\b"]);
  });
});
