import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { fieldsOf, setField } from "../../src/ui/data/fields.js";
import { applyFilters, cycle, filterValues } from "../../src/ui/data/filters.js";
import { previewText } from "../../src/ui/data/preview.js";
import { createSearcher, searchItems } from "../../src/ui/data/search.js";
import { REPO_ROOT } from "../helpers/paths.js";

const FILE = join(REPO_ROOT, "candidates/reference/service-persistence.yaml");
const TEXT = readFileSync(FILE, "utf8");
let attempts: Attempt[];
beforeAll(async () => {
  attempts = (await loadWorkspace(REPO_ROOT)).attempts;
});

describe("live preview counts (core replay, grouped for display)", () => {
  it("the reference service-persistence policy fires on the 3 routed failures and nowhere else", () => {
    const p = previewText(TEXT, FILE, attempts);
    expect(p.errors).toEqual([]);
    expect(p.counts).toEqual({
      positives: { fired: 3, total: 3 },
      negatives: { fired: 0, total: 3 },
      silent: { fired: 0, total: 89 },
      routed: 6,
      firings: 3,
    });
  });

  it("an edit that breaks the rule's trigger shows as no firing; a bad regex as an error", () => {
    const quiet = previewText(
      TEXT.replace("flag: launched\n      not:", "flag: never\n      not:"),
      FILE,
      attempts,
    );
    expect(quiet.counts?.positives).toEqual({ fired: 0, total: 3 });
    const bad = previewText(
      TEXT.replace("(keep|leave|remain|stay)", "(keep|leave"),
      FILE,
      attempts,
    );
    expect(bad.counts).toBeUndefined();
    expect(bad.errors[0]?.format()).toMatch(/service-persistence\.yaml:\d+: eligibility\.anyOf\.0/);
  });
});

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

describe("triage filters and search", () => {
  it("cycles filter values and filters attempts by agent", () => {
    const agents = filterValues(attempts, "agent");
    expect(agents).toContain("codex");
    expect(cycle(agents, undefined)).toBe(agents[0]);
    expect(cycle(agents, agents.at(-1))).toBeUndefined();
    const codex = applyFilters(attempts, { agent: "codex" });
    expect(codex.length).toBeGreaterThan(0);
    expect(codex.every((a) => a.agent === "codex")).toBe(true);
  });

  it("finds a task by a misspelt fuzzy query and an attempt by its id prefix", () => {
    const index = createSearcher(searchItems(attempts, [], []));
    const task = index.search("sqlite ordrs", 10)[0];
    expect(task?.kind === "task" || task?.kind === "attempt").toBe(true);
    expect(task?.title).toContain("recover-sqlite-orders");
    expect(index.search("hAXff60", 10)[0]?.ref).toBe("serve-static-docs__hAXff60-0103688c");
  });

  it("in a large workspace attempts match by id substring first, tasks stay fuzzy", () => {
    const large = createSearcher(searchItems(attempts, [], []), 10); // 95 attempts > 10
    const byId = large.search("haxff60", 10);
    expect(byId[0]?.ref).toBe("serve-static-docs__hAXff60-0103688c");
    const fuzzy = large.search("sqlite ordrs", 10);
    expect(fuzzy.some((i) => i.kind === "task" && i.ref === "recover-sqlite-orders")).toBe(true);
    expect(fuzzy.every((i) => i.kind !== "attempt")).toBe(true);
  });
});
