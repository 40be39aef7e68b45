import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Cluster } from "../../../src/core/mine/cluster.js";
import type { Label } from "../../../src/core/mine/label.js";
import { mine } from "../../../src/core/mine/mine.js";
import {
  type ClusterSuggestions,
  checkSuggestions,
  SUGGEST_LIMITS,
  suggestMessages,
} from "../../../src/core/mine/suggest.js";
import { renderSuggestions, suggestedChanges } from "../../../src/core/mine/suggest-commands.js";
import { shellQuote } from "../../../src/core/shell-quote.js";
import { loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
let clusters: Cluster[];
let labels: Map<string, Label>;

beforeAll(async () => {
  const ws = await loadDemo();
  const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
  clusters = r.clusters;
  labels = new Map(r.labels.map((l) => [l.attemptId, l]));
});

const ids = (): string[] => clusters.map((c) => c.id);

describe("cluster suggestion prompt", () => {
  it("summarises every demo cluster: id, mechanism texts, detectors, intervention point, evidence", () => {
    expect(clusters.length).toBeGreaterThanOrEqual(3);
    const [system, user] = suggestMessages(clusters, labels);
    expect(system?.role).toBe("system");
    const text = user?.content ?? "";
    expect(text.startsWith(`${clusters.length} cluster(s):`)).toBe(true);
    for (const c of clusters) {
      expect(text).toContain(`### ${c.id}\nname: ${c.name}`);
      expect(text).toContain(`intervention point: ${c.interventionPoint}`);
      for (const d of c.detectors) expect(text).toContain(`${d.id}×${d.count}`);
    }
    expect(text.match(/^mechanisms: .+ \(×\d+\)/gm)).toHaveLength(clusters.length);
    expect(text.match(/^evidence: /gm)?.length).toBeGreaterThan(0);
    // deterministic, so an unchanged workspace hits the answer cache
    expect(suggestMessages(clusters, labels)).toEqual([system, user]);
  });

  it("redacts secrets in mechanisms, names and evidence excerpts", () => {
    const c = clusters[0] as Cluster;
    const leaky: Cluster = {
      ...c,
      name: `deploy with ${SECRET}`,
      evidence: [{ attemptId: "a", eventIndex: 3, excerpt: `[tool_call Bash] export T=${SECRET}` }],
    };
    const l = labels.get(c.attemptIds[0] as string) as Label;
    const leakyLabels = new Map([
      [l.attemptId, { ...l, mechanism: `pushes ${SECRET} then stops` }],
    ]);
    const text = suggestMessages([leaky], leakyLabels)
      .map((m) => m.content)
      .join("\n");
    expect(text).not.toContain(SECRET);
    expect(text.match(/\[REDACTED:github-token\]/g)?.length).toBe(3);
  });

  it("shows at most the limit of clusters and says how many are left out", () => {
    const many = Array.from({ length: SUGGEST_LIMITS.clusters + 7 }, (_, i) => ({
      ...(clusters[0] as Cluster),
      id: `c-${String(i).padStart(10, "0")}`,
    }));
    const user = suggestMessages(many, labels)[1]?.content ?? "";
    expect(
      user.startsWith(`${SUGGEST_LIMITS.clusters} cluster(s) (the 7 smallest are not shown)`),
    ).toBe(true);
    expect(user.match(/^### /gm)).toHaveLength(SUGGEST_LIMITS.clusters);
  });
});

describe("checking an answer against the real cluster ids", () => {
  it("accepts names and merges of real clusters", () => {
    const [a, b] = ids();
    const ok: ClusterSuggestions = {
      names: [{ clusterId: a as string, name: "Stops before checking", why: "all stop early" }],
      merges: [{ clusterIds: [a as string, b as string], why: "same rule" }],
    };
    expect(checkSuggestions(ok, clusters)).toEqual([]);
  });

  it("names unknown ids and lists the real ones", () => {
    const problems = checkSuggestions(
      {
        names: [{ clusterId: "c-0000000000", name: "x", why: "" }],
        merges: [{ clusterIds: [ids()[0] as string, "c-ffffffffff"], why: "" }],
      },
      clusters,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('unknown cluster id(s) "c-0000000000", "c-ffffffffff"');
    for (const id of ids()) expect(problems[0]).toContain(id);
  });

  it("rejects a one-cluster merge, a cluster in two merges, a double name, a multi-line name", () => {
    const [a, b, c] = ids() as [string, string, string];
    const problems = checkSuggestions(
      {
        names: [
          { clusterId: a, name: "one", why: "" },
          { clusterId: a, name: "two\nlines", why: "" },
        ],
        merges: [
          { clusterIds: [b, b], why: "" },
          { clusterIds: [a, c], why: "" },
          { clusterIds: [c, b], why: "" },
        ],
      },
      clusters,
    );
    expect(problems).toEqual([
      `names[1]: cluster ${a} is named twice`,
      "names[1].name must be one non-empty line",
      "merges[0] must join at least two different clusters",
      `merges[2]: cluster ${c} is already in another merge`,
      `merges[2]: cluster ${b} is already in another merge`,
    ]);
  });
});

describe("commands that would apply the suggestions", () => {
  it("renames first (ids survive a rename), then merges; quoted for the shell; no-op renames dropped", () => {
    const [a, b, c] = clusters as [Cluster, Cluster, Cluster];
    const changes = suggestedChanges(
      {
        merges: [{ clusterIds: [b.id, c.id], why: "same stop rule" }],
        names: [
          { clusterId: a.id, name: "Agent's stop without a check", why: "w" },
          { clusterId: b.id, name: b.name, why: "already fine" },
        ],
      },
      clusters,
      "/tmp/my ws",
    );
    expect(changes.map((x) => x.command)).toEqual([
      `fire cluster rename -w '/tmp/my ws' ${a.id} 'Agent'\\''s stop without a check'`,
      `fire cluster merge -w '/tmp/my ws' ${b.id} ${c.id}`,
    ]);
    const text = renderSuggestions(changes, clusters.length);
    expect(text).toContain(`rename ${a.id}: "${a.name}" → "Agent's stop without a check"`);
    expect(text).toContain("  why: same stop rule");
    expect(text).toContain("Nothing was applied");
    expect(renderSuggestions([], 4)).toBe(
      "No changes suggested for 4 cluster(s); nothing was changed.\n",
    );
  });

  it("quotes only what the shell would split or expand", () => {
    expect(shellQuote("c-0123456789")).toBe("c-0123456789");
    expect(shellQuote("a $HOME `x`")).toBe("'a $HOME `x`'");
  });
});
