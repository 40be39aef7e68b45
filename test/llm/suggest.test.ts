import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Cluster } from "../../src/core/mine/cluster.js";
import type { Label } from "../../src/core/mine/label.js";
import { mine } from "../../src/core/mine/mine.js";
import { suggestClusterChanges } from "../../src/llm/index.js";
import { loadDemo, removeTempWorkspaces } from "../core/mine/demo-workspace.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
let clusters: Cluster[];
let labels: Label[];
let fake: FakeOpenAI;
let cacheDir: string;

beforeAll(async () => {
  const ws = await loadDemo();
  const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
  // one cluster quotes a secret in its evidence, as a trace could
  const [first, ...rest] = r.clusters as [Cluster, ...Cluster[]];
  clusters = [
    { ...first, evidence: [{ attemptId: "x", eventIndex: 1, excerpt: `git push ${SECRET}` }] },
    ...rest,
  ];
  labels = r.labels;
});
afterAll(removeTempWorkspaces);
beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-suggest-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

/** Cluster ids exactly as the prompt shows them. */
function shownIds(body: ChatBody): string[] {
  const user = body.messages.find((m: { role: string }) => m.role === "user").content as string;
  return [...user.matchAll(/^### (c-[0-9a-f]{10})$/gm)].map((m) => m[1] as string);
}

const opts = () => ({ config: { model: "fake-model" }, cacheDir, baseURL: fake.baseURL });

describe("LLM cluster naming and merge suggestions (local OpenAI-compatible server)", () => {
  it("valid suggestions come back in one structured request without secrets", async () => {
    fake.respond = (body) => {
      const [a, b, c] = shownIds(body);
      return {
        kind: "json",
        answer: {
          names: [{ clusterId: a, name: "Stops before the final check", why: "all stop early" }],
          merges: [{ clusterIds: [b, c], why: "one stop rule covers both" }],
        },
      };
    };
    const { outcome, report } = await suggestClusterChanges(clusters, labels, opts());
    expect(outcome).toEqual({
      ok: true,
      cached: false,
      suggestions: {
        names: [
          {
            clusterId: clusters[0]?.id,
            name: "Stops before the final check",
            why: "all stop early",
          },
        ],
        merges: [
          { clusterIds: [clusters[1]?.id, clusters[2]?.id], why: "one stop rule covers both" },
        ],
      },
    });
    expect(fake.chat).toHaveLength(1);
    expect(shownIds(fake.chat[0])).toEqual(clusters.map((c) => c.id));
    expect(fake.chat[0].response_format.json_schema.name).toBe("fire_cluster_suggestions");
    expect(fake.allReceived()).not.toContain(SECRET);
    expect(fake.allReceived()).toContain("[REDACTED:github-token]");
    expect(report).toMatchObject({ requests: 1, repairs: 0, cacheHits: 0, failures: [] });
  });

  it("an unknown cluster id gets one repair request naming it, then the corrected answer", async () => {
    fake.respond = (body, n) => {
      const [a, b] = shownIds(body);
      return {
        kind: "json",
        answer: {
          names: [],
          merges: [{ clusterIds: [a, n === 0 ? "c-deadbeef00" : b], why: "same" }],
        },
      };
    };
    const { outcome, report } = await suggestClusterChanges(clusters, labels, opts());
    expect(fake.chat).toHaveLength(2);
    const repair = fake.chat[1].messages.at(-1).content as string;
    expect(repair).toContain('unknown cluster id(s) "c-deadbeef00"');
    expect(repair).toContain(clusters[0]?.id);
    expect(outcome).toMatchObject({
      ok: true,
      suggestions: { merges: [{ clusterIds: [clusters[0]?.id, clusters[1]?.id] }] },
    });
    expect(report.repairs).toBe(1);
  });

  it("an answer still wrong after the repair is a clear failure, and nothing is cached", async () => {
    fake.respond = () => ({
      kind: "json",
      answer: { names: [{ clusterId: "c-nope", name: "n", why: "w" }], merges: [] },
    });
    const { outcome, report } = await suggestClusterChanges(clusters, labels, opts());
    expect(fake.chat).toHaveLength(2);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.reason).toMatch(
      /^invalid answer after repair: unknown cluster id\(s\) "c-nope"/,
    );
    expect(report.failures).toHaveLength(1);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("a re-run over the same clusters sends nothing and answers from the cache", async () => {
    fake.respond = (body) => ({
      kind: "json",
      answer: {
        names: [{ clusterId: shownIds(body)[0], name: "Evidence mutated first", why: "w" }],
        merges: [],
      },
    });
    const first = await suggestClusterChanges(clusters, labels, opts());
    expect(fake.chat).toHaveLength(1);
    const again = await suggestClusterChanges(clusters, labels, opts());
    expect(fake.chat).toHaveLength(1);
    expect(again.outcome).toEqual({ ...first.outcome, cached: true });
    expect(again.report).toMatchObject({ requests: 0, cacheHits: 1 });
    const [shard] = await readdir(cacheDir);
    const [file] = await readdir(join(cacheDir, shard as string));
    const entry = await readFile(join(cacheDir, shard as string, file as string), "utf8");
    expect(entry).toContain('"schemaVersion":"fire_cluster_suggestions@cluster-suggestions@1"');
    expect(entry).not.toContain(SECRET);
    // a different cluster set is a different prompt: asked again
    await suggestClusterChanges(clusters.slice(1), labels, opts());
    expect(fake.chat).toHaveLength(2);
  });

  it("no clusters: no request", async () => {
    const { outcome, report } = await suggestClusterChanges([], labels, opts());
    expect(outcome).toEqual({ ok: true, cached: false, suggestions: { names: [], merges: [] } });
    expect(report.requests).toBe(0);
    expect(fake.requests).toHaveLength(0);
  });
});
