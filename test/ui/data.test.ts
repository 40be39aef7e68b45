import { beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { applyFilters, cycle, filterValues } from "../../src/ui/data/filters.js";
import { createSearcher, searchItems } from "../../src/ui/data/search.js";
import { REPO_ROOT } from "../helpers/paths.js";

let attempts: Attempt[];
beforeAll(async () => {
  attempts = (await loadWorkspace(REPO_ROOT)).attempts;
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
    const large = createSearcher(searchItems(attempts, [], []), 10); // the demo's attempts > 10
    const byId = large.search("haxff60", 10);
    expect(byId[0]?.ref).toBe("serve-static-docs__hAXff60-0103688c");
    const fuzzy = large.search("sqlite ordrs", 10);
    expect(fuzzy.some((i) => i.kind === "task" && i.ref === "recover-sqlite-orders")).toBe(true);
    expect(fuzzy.every((i) => i.kind !== "attempt")).toBe(true);
  });

  it("a phrase finds every task whose text holds it, wherever it sits; rows are one line", () => {
    const index = createSearcher(searchItems(attempts, [], []));
    for (const phrase of ["keep the server running", "port 5000"]) {
      const holding = new Set(
        attempts
          .filter((a) => a.taskText.replace(/\s+/g, " ").toLowerCase().includes(phrase))
          .map((a) => a.taskId),
      );
      expect(holding.size).toBeGreaterThan(0);
      const found = new Set(
        index
          .search(phrase, 50)
          .filter((i) => i.kind === "task")
          .map((i) => i.ref),
      );
      for (const t of holding) expect(found, `${phrase}: ${t}`).toContain(t);
    }
    const withNewline = searchItems(attempts, [], []).filter(
      (i) =>
        i.kind === "task" && attempts.some((a) => a.taskId === i.ref && a.taskText.includes("\n")),
    );
    expect(withNewline.length).toBeGreaterThan(0);
    expect(withNewline.every((i) => !/[\n\r]/.test(i.detail))).toBe(true);
  });
});
