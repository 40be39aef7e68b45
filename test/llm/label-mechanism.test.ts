import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clusterLabels } from "../../src/core/mine/cluster.js";
import { runDetectorsAll } from "../../src/core/mine/detectors/index.js";
import type { DetectorHit } from "../../src/core/mine/detectors/types.js";
import { heuristicLabel } from "../../src/core/mine/heuristic.js";
import { MECHANISMS } from "../../src/core/mine/mechanisms.js";
import { Attempt } from "../../src/core/model/attempt.js";
import type { Workspace } from "../../src/core/workspace/load.js";
import { LlmConfig } from "../../src/llm/config.js";
import { labelAttempts } from "../../src/llm/label.js";
import { buildLabelPrompt } from "../../src/llm/prompt.js";
import {
  attemptByPrefix,
  loadOpenclaw,
  removeTempWorkspaces,
} from "../core/mine/demo-workspace.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { firstShown, goodAnswer } from "./attempts.js";

const limits = LlmConfig.parse({});
let ws: Workspace;
let hits: Map<string, DetectorHit[]>;
let fake: FakeOpenAI;
let cacheDir: string;

beforeAll(async () => {
  ws = await loadOpenclaw();
  hits = runDetectorsAll(ws.attempts);
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-llm-mech-"));
});
afterEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});
afterAll(async () => {
  await fake.close();
  removeTempWorkspaces();
});

const user = (body: ChatBody): string => String(body.messages[1]?.content ?? "");
/** The first event index the prompt shows, so a scripted answer cites a real event. */
const shown = (body: ChatBody): number => Number(user(body).match(/^\[(\d+)\] /m)?.[1] ?? 0);

describe("the LLM labeller's prompt carries the offline labeller's evidence", () => {
  it("shows the mechanism signature, the named paths and whether they were written, within budget", () => {
    const a = attemptByPrefix(ws.attempts, "t2-add-tests-normalizer__BPeAoa2");
    const h = hits.get(a.id) ?? [];
    const offline = heuristicLabel(a, h);
    expect(offline.mechanismId).toBe("artifact-wrong-path");
    const p = buildLabelPrompt(a, h, limits);
    const text = p.messages[1]?.content ?? "";
    const section = text.slice(text.indexOf("## Mechanism evidence"));
    expect(section).toContain(
      `offline labeller's signature (mechanism|point|evidence): artifact-wrong-path|stop|${offline.signature}`,
    );
    expect(section).toMatch(/files the verifier reports missing: \S/);
    expect(section).toContain("fault markers: none found");
    expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
    // every id the answer schema accepts comes with what it names and where a rule acts
    const system = p.messages[0]?.content ?? "";
    expect(system).toContain(
      "- service-persistence: server launched in the agent session and not kept running at stop (stop)",
    );
    expect(system).toContain("- artifact-wrong-path: artifact written at another path");
    for (const m of MECHANISMS) expect(system).toContain(`- ${m.id}: ${m.name} (${m.point})`);
  });

  it("shows the fault markers the workspace configures (and none without them)", () => {
    const a = Attempt.parse({
      id: "m1",
      source: { format: "fire-jsonl", path: "/m1.jsonl" },
      taskId: "t",
      taskText: "Use the `acme` CLI to sync `out/report.json`.",
      outcome: "fail",
      events: [
        { index: 0, kind: "tool_call", tool: "Bash", command: "acme sync", callId: "c" },
        { index: 1, kind: "tool_result", output: "ACME-LICENSE-EXPIRED", callId: "c" },
      ],
    });
    const plain = buildLabelPrompt(a, [], limits).messages[1]?.content ?? "";
    expect(plain).toContain("fault markers: none found");
    expect(plain).toContain("paths the task names: out/report.json (not written)");
    const marked =
      buildLabelPrompt(a, [], limits, { markers: { environment: ["license-expired"] } }).messages[1]
        ?.content ?? "";
    expect(marked).toMatch(/fault markers: provider_fault — environment: `acme`/);
  });

  it("keeps the evidence bounded: a task naming hundreds of paths does not crowd out events", () => {
    const a = attemptByPrefix(ws.attempts, "task-calendar__8A83BnJ");
    const many = Attempt.parse({
      ...a,
      taskText: `${a.taskText}\n${Array.from({ length: 300 }, (_, i) => `/data/in/f${i}.csv`).join(" ")}`,
    });
    const p = buildLabelPrompt(many, hits.get(a.id) ?? [], limits);
    const text = p.messages[1]?.content ?? "";
    const section = text.slice(text.indexOf("## Mechanism evidence"), text.indexOf("## Events"));
    expect(section.length).toBeLessThanOrEqual(760);
    expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
    expect(p.shownEvents).toContain(a.events.at(-1)?.index);
  });
});

describe("LLM answers name a known mechanism id (strict schema, nullable), and cluster with heuristic labels", () => {
  it("an LLM label naming a known id shares the heuristic label's cluster; a free-text one does not", async () => {
    const viaLlm = attemptByPrefix(ws.attempts, "t2-add-tests-normalizer__BPeAoa2");
    const freeText = attemptByPrefix(ws.attempts, "t3-data-pipeline-report__25HCHpE");
    const viaHeuristic = attemptByPrefix(ws.attempts, "task-calendar__8A83BnJ");
    fake.respond = (body) => {
      const named = user(body).startsWith(`Attempt ${viaLlm.id} `);
      return {
        kind: "json",
        answer: goodAnswer({
          mechanism: named
            ? "tests saved beside the path the verifier reads"
            : "summed the wrong column",
          mechanismId: named ? "artifact-wrong-path" : null,
          interventionPoint: "stop",
          capabilityEvidence: [{ eventIndex: shown(body), why: "shown" }],
          preFailureState: { eventIndex: shown(body), description: "before stop" },
          evidence: [{ claim: "state", from: "event", attemptId: null, ...firstShown(body) }],
        }),
      };
    };
    const llm = [viaLlm, freeText];
    const { labels } = await labelAttempts(llm, {
      evidence: new Map(llm.map((a) => [a.id, hits.get(a.id) ?? []])),
      config: { model: "fake-model", backoffMs: 1, maxBackoffMs: 2 },
      cacheDir,
      apiKey: "sk-test-0123456789abcdefghijklmn",
      baseURL: fake.baseURL,
    });
    // strict structured output: the id is required and nullable, from the registry's ids
    const rf = fake.chat.at(-1).response_format;
    expect(rf.json_schema.strict).toBe(true);
    expect(rf.json_schema.schema.required).toContain("mechanismId");
    expect(JSON.stringify(rf.json_schema.schema.properties.mechanismId)).toContain(
      '"artifact-wrong-path"',
    );
    expect(JSON.stringify(rf.json_schema.schema.properties.mechanismId)).toContain('"null"');

    const [named, free] = labels;
    const heuristic = heuristicLabel(viaHeuristic, hits.get(viaHeuristic.id) ?? []);
    expect(named?.mechanismId).toBe("artifact-wrong-path");
    expect(named?.mechanism).toBe("tests saved beside the path the verifier reads");
    expect(named?.signature).toBe(heuristic.signature);
    expect(free?.mechanismId).toBeUndefined();
    expect(free && "mechanismId" in free).toBe(false);

    const clusters = clusterLabels({
      labels: [...labels, heuristic],
      attempts: new Map(ws.attempts.map((a) => [a.id, a])),
      hits,
      threshold: 0.5,
    });
    const mixed = clusters.find((c) => c.attemptIds.includes(viaHeuristic.id));
    expect(mixed?.attemptIds).toEqual([viaLlm.id, viaHeuristic.id].sort());
    expect(mixed?.mechanismId).toBe("artifact-wrong-path");
    expect(clusters.find((c) => c.attemptIds.includes(freeText.id))?.attemptIds).toEqual([
      freeText.id,
    ]);
  });

  it("an id outside the registry is rejected and repaired, not stored", async () => {
    const a = attemptByPrefix(ws.attempts, "task-calendar__8A83BnJ");
    let n = 0;
    fake.respond = (body) => ({
      kind: "json",
      answer: {
        ...goodAnswer({
          capabilityEvidence: [{ eventIndex: shown(body), why: "shown" }],
          preFailureState: null,
        }),
        mechanismId: n++ === 0 ? "made-up-mechanism" : null,
      },
    });
    const before = fake.chat.length;
    const { labels } = await labelAttempts([a], {
      evidence: new Map([[a.id, hits.get(a.id) ?? []]]),
      config: { model: "fake-model", backoffMs: 1, maxBackoffMs: 2 },
      cacheDir,
      apiKey: "sk-test-0123456789abcdefghijklmn",
      baseURL: fake.baseURL,
    });
    expect(fake.chat.length - before).toBe(2);
    expect(fake.chat.at(-1).messages.at(-1).content).toMatch(/mechanismId/);
    expect(labels[0]?.unlabelledReason).toBeUndefined();
  });
});
