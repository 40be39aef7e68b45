import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Attempt, Event } from "../core/model/attempt.js";
import { loadPolicies } from "../core/policy/load.js";
import { refineCandidate } from "../core/refine/refine.js";
import { runReplayScreen } from "../core/screening/replay/measure.js";
import { DEFAULT_SIZES } from "../core/screening/replay/sets.js";
import { DEFAULT_THRESHOLDS } from "../core/verdict/thresholds.js";
import type { Benchmark } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const TASKS = Number(process.env.FIRE_BENCH_REFINE_TASKS ?? 1000);
const EVENTS = 40;

const VERBS = ["Serve", "Recover", "Replace", "Compile", "Fix", "Convert", "Deploy", "Audit"];
const THINGS = ["site", "database", "hostname", "paper", "parser", "export", "service", "logs"];
const COMMANDS = [
  "ls -la /app",
  "python3 -m http.server 8080 &",
  "curl -s localhost:8080/ | head",
  "sqlite3 /data/app.db '.tables'",
  "cp -a /data /tmp/evidence",
  "python3 -m pytest -q tests/",
  "nohup ./server > /tmp/log 2>&1 &",
];

/** 1,000 tasks of one attempt each; task texts vary by verb, object and a number. */
function corpus(): Attempt[] {
  const out: Attempt[] = [];
  for (let t = 0; t < TASKS; t++) {
    const text = `${VERBS[t % VERBS.length]} the ${THINGS[(t * 3) % THINGS.length]} number ${t} and keep the server running after you finish${t % 5 === 0 ? " on port 8080" : ""}.`;
    const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: text }];
    for (let i = 1; i < EVENTS; i++) {
      const c = COMMANDS[(t + i) % COMMANDS.length]!;
      events.push(
        i % 2
          ? {
              index: i,
              kind: "tool_call",
              tool: "Bash",
              command: c,
              input: JSON.stringify({ command: c }),
            }
          : { index: i, kind: "tool_result", tool: "Bash", output: "ok", exitCode: 0 },
      );
    }
    out.push({
      id: `bench-${t}`,
      source: { format: "fire-jsonl", path: "bench" },
      taskId: `task-${t}`,
      taskText: text,
      arm: "baseline",
      outcome: t % 3 === 0 ? "fail" : "pass",
      events,
    });
  }
  return out;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export const refineBenchmark: Benchmark = {
  name: "refine",
  description: "candidate refine: time per candidate at 1,000 tasks ÷ one replay screen",
  async run(log) {
    const { policies, errors } = loadPolicies([
      resolve(ROOT, "candidates/reference/service-persistence.yaml"),
    ]);
    if (errors.length > 0) throw new Error(errors.map((e) => e.format()).join("\n"));
    const attempts = corpus();
    const base = policies[0]!;
    const candidate = {
      ...base.candidate,
      lineage: { clusters: [], attempts: attempts.filter((_, i) => i % 60 === 0).map((a) => a.id) },
    };
    const { compilePolicy } = await import("../core/policy/compile.js");
    const policy = compilePolicy(candidate);
    const input = {
      policy,
      others: [],
      attempts,
      preFailure: new Map<string, number>(),
      sizes: DEFAULT_SIZES,
      seed: 7,
      thresholds: DEFAULT_THRESHOLDS,
      now: new Date(0),
    };
    runReplayScreen(input);
    let t0 = process.hrtime.bigint();
    const screen = runReplayScreen(input);
    const one = ms(t0);
    t0 = process.hrtime.bigint();
    const r = await refineCandidate({
      target: { candidate, policy, file: "bench.yaml" },
      screen,
      others: [],
      attempts,
      preFailure: new Map(),
      thresholds: DEFAULT_THRESHOLDS,
      budgetMs: 600_000,
    });
    const all = ms(t0);
    log(
      `${TASKS} tasks: one replay screen ${one.toFixed(0)} ms (${screen.verdict.verdict}); refine ${all.toFixed(0)} ms, ${r.tried} refinements replayed, ${r.proposals.length} proposals (${r.separation})`,
    );
    return [
      {
        target: "refine time per candidate ÷ one replay screen",
        measured: all / one,
        limit: 150,
        kind: "max",
        note: `${(all / 1000).toFixed(1)} s per candidate at ${TASKS} tasks, ${r.tried} replays`,
      },
    ];
  },
};
