import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fieldsOf, setField } from "../../../src/core/policy/fields.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const FILE = join(REPO_ROOT, "candidates/reference/service-persistence.yaml");
const TEXT = readFileSync(FILE, "utf8");

describe("field editor", () => {
  it("offers the mechanics leaves, and a nudge limit for a rule without one", () => {
    const fields = fieldsOf(TEXT, FILE).map((f) => f.path.join("."));
    expect(fields[0]).toBe("eligibility.anyOf.0.pattern");
    expect(fields).toContain("rules.0.message");
    expect(fields).toContain("rules.0.nudgeLimit");
    expect(fields).toContain("behavior.steps");
    expect(fields.some((f) => f.startsWith("id") || f.startsWith("history"))).toBe(false);
  });

  it("sets a value keeping YAML comments, and numbers stay numbers", () => {
    const nl = fieldsOf(TEXT, FILE).find((f) => f.path.join(".") === "rules.0.nudgeLimit")!;
    const out = setField(TEXT, FILE, nl, "3");
    expect(out).toContain("# yaml-language-server");
    expect(out).toMatch(/^ {4}nudgeLimit: 3$/m);
    const json = '{\n  "rules": [{ "id": "r", "nudgeLimit": 2 }]\n}\n';
    const jf = fieldsOf(json, "c.json").find((f) => f.path.join(".") === "rules.0.nudgeLimit")!;
    expect(JSON.parse(setField(json, "c.json", jf, "4")).rules[0].nudgeLimit).toBe(4);
  });
});
