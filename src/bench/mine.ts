import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runDetectors } from "../core/mine/detectors/index.js";
import type { Attempt } from "../core/model/attempt.js";
import { loadWorkspace } from "../core/workspace/load.js";
import { writeDemo } from "../gen/demo.js";
import { type DetectorHit, LlmConfig, labelAttempts } from "../llm/index.js";
import { buildLabelPrompt, fullTraceText } from "../llm/prompt.js";
import { estimateTokens, TOKEN_ESTIMATOR } from "../llm/tokens.js";
import type { Benchmark, BenchResult } from "./types.js";

/** Simulated model latency of the local server (real models take seconds), so concurrency has something to overlap. */
const LATENCY_MS = Number(process.env.FIRE_BENCH_MINE_LATENCY_MS ?? 50);
/** Copies of the demo failures labelled in the throughput runs. */
const COPIES = 4;

interface LocalServer {
  baseURL: string;
  requests: () => number;
  close: () => Promise<void>;
}

/** A minimal OpenAI-compatible chat endpoint on 127.0.0.1 answering valid labels. */
async function startLocalServer(): Promise<LocalServer> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      count += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const user: string =
        body.messages?.find((m: { role: string }) => m.role === "user")?.content ?? "";
      const cited = Number(user.match(/^\[(\d+)\] /m)?.[1] ?? 0);
      // a valid answer of the current schema (label-answer@3): kept for review, one cited event
      const answer = {
        exclusion: "none",
        kind: "policy_addressable",
        status: "needs_review",
        evidence: [
          { claim: "state", from: "event", eventIndex: cited, attemptId: null, excerpt: "bench" },
        ],
        capabilityEvidence: [],
        preFailureState: { eventIndex: cited, description: "bench" },
        mechanism: "stop without check",
        mechanismId: null,
        interventionPoint: "stop",
        secondReading: null,
        confidence: 0.5,
        rationale: "bench",
      };
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: `bench-${count}`,
            object: "chat.completion",
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: JSON.stringify(answer), refusal: null },
                finish_reason: "stop",
              },
            ],
            usage: {
              prompt_tokens: Math.ceil(user.length / 4),
              completion_tokens: 60,
              total_tokens: 0,
            },
          }),
        );
      }, LATENCY_MS);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The demo corpus: `traces/generated` when present, else generated (seed 7) into `tmp`. */
async function demoFailures(tmp: string, log: (l: string) => void) {
  let corpus = resolve("traces/generated");
  if (!existsSync(corpus)) {
    corpus = join(tmp, "demo");
    await writeDemo({ outDir: corpus, seed: 7 });
    log("traces/generated not found: generated the demo corpus (seed 7) in a temp dir");
  }
  return failuresOf(corpus, join(tmp, "ws"));
}

/** The failed attempts of a corpus with their detector evidence. */
async function failuresOf(corpus: string, ws: string) {
  await mkdir(ws, { recursive: true });
  await writeFile(join(ws, "fire.config.json"), JSON.stringify({ sources: [corpus] }));
  const loaded = await loadWorkspace(ws);
  const failed = loaded.attempts.filter((a) => a.outcome !== "pass");
  const evidence = new Map<string, DetectorHit[]>();
  for (const a of failed) {
    const siblings = loaded.attempts.filter((b) => b.taskId === a.taskId && b.id !== a.id);
    evidence.set(a.id, runDetectors(a, { siblings }));
  }
  return { failed, evidence };
}

async function timedLabel(
  attempts: Attempt[],
  evidence: Map<string, DetectorHit[]>,
  server: LocalServer,
  cacheDir: string,
  concurrency: number,
) {
  const t0 = performance.now();
  const { report } = await labelAttempts(attempts, {
    evidence,
    config: { model: "bench-model", concurrency, maxRequests: 100_000 },
    cacheDir,
    apiKey: "bench",
    baseURL: server.baseURL,
  });
  return { seconds: (performance.now() - t0) / 1000, report };
}

export const mineBenchmark: Benchmark = {
  name: "mine",
  description: "LLM labelling: prompt compression, cached re-run, throughput at concurrency 8",
  async run(log) {
    const tmp = await mkdtemp(join(tmpdir(), "fire-bench-mine-"));
    const server = await startLocalServer();
    try {
      const { failed, evidence } = await demoFailures(tmp, log);
      // Compression is measured on real traces (the bundled OpenClaw trials): the generated
      // demo's attempts are ~1.5k tokens each, short enough to be sent whole.
      const real = await failuresOf(resolve("traces/harbor-openclaw"), join(tmp, "ws-real"));
      const limits = LlmConfig.parse({});
      let prompt = 0;
      let full = 0;
      let whole = 0;
      for (const a of real.failed) {
        const p = buildLabelPrompt(a, real.evidence.get(a.id) ?? [], limits);
        prompt += p.promptTokens;
        full += estimateTokens(fullTraceText(a));
        if (p.shownEvents.length === a.events.length) whole++;
      }
      log(
        `${real.failed.length} failed real attempts (${whole} shown whole); tokens by ${TOKEN_ESTIMATOR}: prompt ${prompt}, full ${full}`,
      );

      const copies = Array.from({ length: COPIES }, (_, k) =>
        failed.map((a) => ({ ...a, id: `${a.id}#${k}` })),
      ).flat();
      const ev = new Map(copies.map((a) => [a.id, evidence.get(a.id.replace(/#\d+$/, "")) ?? []]));
      const one = await timedLabel(copies, ev, server, join(tmp, "cache-c1"), 1);
      const eight = await timedLabel(copies, ev, server, join(tmp, "cache-c8"), 8);
      const before = server.requests();
      const rerun = await timedLabel(copies, ev, server, join(tmp, "cache-c8"), 8);
      const rerunRequests = server.requests() - before;
      const rate = (r: { seconds: number }) => copies.length / r.seconds;
      log(
        `${copies.length} attempts, server latency ${LATENCY_MS} ms: c1 ${rate(one).toFixed(1)}/s, c8 ${rate(eight).toFixed(1)}/s; labelled ${eight.report.labelled}; re-run cache hits ${rerun.report.cacheHits}`,
      );
      const results: BenchResult[] = [
        {
          target: "prompt tokens ÷ full trace tokens (real traces)",
          measured: prompt / full,
          limit: 0.25,
          kind: "max",
          note: `${real.failed.length} attempts, ${whole} whole, ${TOKEN_ESTIMATOR}`,
        },
        { target: "requests on a cached re-run", measured: rerunRequests, limit: 0, kind: "max" },
        {
          target: "labelling throughput c8 ÷ c1 (local server)",
          measured: rate(eight) / rate(one),
          limit: 4,
          kind: "min",
          note: `${rate(eight).toFixed(0)} attempts/s at c8`,
        },
      ];
      return results;
    } finally {
      await server.close();
      await rm(tmp, { recursive: true, force: true });
    }
  },
};
