import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { previewCounts, previewText } from "../../../src/core/replay/preview.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

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

describe("preview groups", () => {
  it("with a lineage, positives are exactly the lineage's attempts, fired or not", () => {
    const ref = loadPolicies([FILE]).policies[0]!;
    const lineage = attempts.filter((a) => a.outcome !== "pass").slice(0, 2);
    const policy = {
      ...ref,
      candidate: {
        ...ref.candidate,
        lineage: { ...ref.candidate.lineage, attempts: lineage.map((a) => a.id) },
      },
    };
    const c = previewCounts(policy, attempts);
    expect(c.positives.total).toBe(2);
    expect(c.positives.total + c.negatives.total + c.silent.total).toBe(attempts.length);
    expect(c.firings).toBe(3);
  });
});
