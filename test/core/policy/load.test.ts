import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { candidateJsonSchema } from "../../../src/core/policy/json-schema.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const GOOD_YAML = `id: good-one
version: 2
family: service-persistence
title: A good one
chain: { state: s, intervention: i, behavior: b, verifier: v }
eligibility:
  anyOf:
    - { pattern: "keep .{0,20}running", flags: i }
rules:
  - id: at-stop
    at: stop
    action: instruct
    message: Probe it.
behavior: { flag: probed }
`;

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "fire-policy-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, ".."), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}

describe("loadPolicies", () => {
  it("loads YAML and JSON candidates from a directory tree, keeping good files around bad ones", () => {
    const json = JSON.stringify(
      {
        ...JSON.parse(JSON.stringify({ id: "other", version: 1 })),
        family: "f",
        title: "t",
        chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
        rules: [{ id: "r", at: "tool", action: "deny", message: "m", when: { command: "rm -rf" } }],
        behavior: {},
      },
      null,
      2,
    );
    const d = dir({
      "a.yaml": GOOD_YAML,
      "sub/b.json": json,
      "sub/c.json": "{ not json",
      "notes.txt": "ignored",
    });
    const r = loadPolicies([d]);
    expect(r.policies.map((p) => p.key)).toEqual(["good-one@2", "other@1"]);
    expect(r.policies[0]!.candidate.status).toBe("draft");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.file).toBe(join(d, "sub/c.json"));
    expect(r.errors[0]!.format()).toMatch(/c\.json:1: invalid JSON/);
  });

  it("names the file, line and field path of a schema error", () => {
    const bad = GOOD_YAML.replace("action: instruct", "action: block");
    const d = dir({ "bad.yaml": bad });
    const r = loadPolicies([join(d, "bad.yaml")]);
    expect(r.policies).toHaveLength(0);
    expect(r.errors).toHaveLength(1);
    const line = bad.split("\n").findIndex((l) => l.includes("action: block")) + 1;
    expect(r.errors[0]!.line).toBe(line);
    expect(r.errors[0]!.message).toMatch(/^rules\.0\.action: .*"instruct"\|"deny"/);
  });

  it("names a missing field, an unknown key and a deny outside tool calls", () => {
    const d = dir({
      "x.json": JSON.stringify(
        {
          id: "x",
          version: 1,
          family: "f",
          title: "t",
          chain: { state: "s", intervention: "i", behavior: "b" },
          rules: [{ id: "r", at: "stop", action: "deny", message: "m", when: { taskId: "t1" } }],
          behavior: {},
        },
        null,
        2,
      ),
    });
    const msgs = loadPolicies([d]).errors.map((e) => e.message);
    expect(msgs).toContainEqual(expect.stringMatching(/^chain\.verifier: /));
    expect(msgs).toContainEqual(expect.stringMatching(/^rules\.0\.when: .*taskId/));
  });

  it("rejects a deny at stop with the field named", () => {
    const d = dir({ "d.yaml": GOOD_YAML.replace("action: instruct", "action: deny") });
    const [e] = loadPolicies([d]).errors;
    expect(e!.message).toMatch(/^rules\.0\.action: deny is only possible before a tool call/);
  });

  it("rejects a pattern that does not compile, naming it and its line", () => {
    const text = GOOD_YAML.replace('"keep .{0,20}running"', '"keep (running"');
    const d = dir({ "p.yaml": text });
    const [e] = loadPolicies([d]).errors;
    expect(e!.message).toMatch(
      /^eligibility\.anyOf\.0: pattern \/keep \(running\/i does not compile/,
    );
    expect(e!.line).toBe(8);
  });

  it("admits catastrophic shapes (they run in linear time) and refuses lookaround with file:line", () => {
    const shape = GOOD_YAML.replace(
      "    message: Probe it.",
      '    message: Probe it.\n    when: { output: "(a+)+$" }',
    );
    expect(loadPolicies([dir({ "s.yaml": shape })]).policies).toHaveLength(1);
    const text = GOOD_YAML.replace(
      "    message: Probe it.",
      '    message: Probe it.\n    when: { output: "a(?=b)" }',
    );
    const d = dir({ "s.yaml": text });
    const r = loadPolicies([d]);
    expect(r.policies).toHaveLength(0);
    expect(r.errors[0]!.message).toMatch(
      /^rules\.0\.when\.output: pattern \/a\(\?=b\)\/ cannot run in linear time/,
    );
    expect(r.errors[0]!.line).toBe(14);
    // admission is part of compiling: skipping the safety report does not let it through
    expect(loadPolicies([d], { skipSafety: true }).policies).toHaveLength(0);
  });

  it("reports a duplicate id@version and a missing path", () => {
    const d = dir({ "a.yaml": GOOD_YAML, "b.yaml": GOOD_YAML });
    const r = loadPolicies([d, join(d, "nope")]);
    expect(r.policies).toHaveLength(1);
    expect(r.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^id: good-one@2 is already defined in .*a\.yaml$/),
      expect.stringMatching(/^cannot read/),
    ]);
  });
});

describe("schema/candidate.schema.json", () => {
  it("equals the JSON Schema generated from the zod schema (run `npm run schema`)", () => {
    const committed = readFileSync(join(REPO_ROOT, "schema/candidate.schema.json"), "utf8");
    expect(committed).toBe(candidateJsonSchema());
    expect(JSON.parse(committed).required).toEqual(
      expect.arrayContaining(["id", "version", "family", "title", "chain", "rules", "behavior"]),
    );
  });
});
