import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mine } from "../../../src/core/mine/mine.js";
import { renderMine } from "../../../src/core/mine/render.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

let ws: Workspace;
beforeAll(async () => {
  ws = await loadDemo();
});

describe("fire mine's text lists what needs review", () => {
  it("one line per failure and one for its evidence, whatever newlines the trace holds", async () => {
    const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
    // a multi-line command as the first evidence of a review label
    const first = r.labels.find((l) => l.status === "needs_review");
    expect(first).toBeDefined();
    const labels = r.labels.map((l) =>
      l === first
        ? {
            ...l,
            evidence: [
              {
                claim: "state" as const,
                from: "event" as const,
                eventIndex: 3,
                excerpt: "a\nb\n\nc",
              },
            ],
          }
        : l,
    );
    const text = renderMine({ ...r, labels }).split("\n");
    const head = text.findIndex((l) => l.startsWith("Needs review: "));
    expect(text[head]).toBe(
      `Needs review: ${r.review.length} (in scope; the evidence names no mechanism yet — see \`fire show\`)`,
    );
    const rows = text.slice(head + 1, head + 1 + 2 * r.review.length);
    for (let i = 0; i < rows.length; i += 2) {
      expect(rows[i]).toMatch(/^ {2}\S+ {2}(procedural_loss|policy_addressable) {2}\S/);
      expect(rows[i + 1]).toMatch(
        /^ {6}(state|mechanism|capability|addressable) (event|sibling|verifier|result|task)/,
      );
    }
    expect(text).toContain("      state event #3: a b c");
    expect(r.review).toContain(first?.attemptId);
  });
});
