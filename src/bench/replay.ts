import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Attempt, Event } from "../core/model/attempt.js";
import { loadPolicies } from "../core/policy/load.js";
import { collectPatterns } from "../core/policy/patterns.js";
import { replayAttempts } from "../core/policy/replay.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import type { Benchmark } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const TOTAL = Number(process.env.FIRE_BENCH_REPLAY_EVENTS ?? 1_000_000);
const PER_ATTEMPT = 200;

const TASKS = [
  "Serve the built site on port 8080 and keep the server running after you finish.",
  "Recover every row from the corrupted SQLite database in /data and write them to a CSV.",
  "Replace every occurrence of the old hostname with the new one in the config files.",
  "Compile the paper with pdflatex; the final log must contain no Overfull \\hbox warnings.",
  "Fix the failing unit tests in the parser module without changing the tests.",
  "Write a script that converts the CSV export to JSON lines.",
];
const COMMANDS = [
  "ls -la /app",
  "cat /app/README.md",
  "python3 -m pytest -q tests/",
  "grep -rn TODO src | head -20",
  "python3 -m http.server 8080 &",
  "curl -s localhost:8080/ | head",
  "sqlite3 /data/app.db '.tables'",
  "cp -a /data /tmp/evidence",
  "sed -i 's/old.example.com/new.example.com/g' conf/app.ini",
  "pdflatex paper.tex && grep -c Overfull paper.log",
  "git status && git diff --stat",
  "npm test 2>&1 | tail -30",
];
const OUTPUT =
  "total 48\ndrwxr-xr-x 5 root root 4096 .\n-rw-r--r-- 1 root root 1290 README.md\n".repeat(3);

/** A deterministic corpus of `total` events in attempts of PER_ATTEMPT events. */
export function replayCorpus(total: number): Attempt[] {
  const attempts: Attempt[] = [];
  let k = 0;
  for (let a = 0; k < total; a++) {
    const events: Event[] = [];
    const taskText = TASKS[a % TASKS.length]!;
    for (let i = 0; i < PER_ATTEMPT && k < total; i++, k++) {
      const c = COMMANDS[(a * 7 + i) % COMMANDS.length]!;
      const r = i % 4;
      if (i === 0) events.push({ index: i, kind: "prompt", role: "user", input: taskText });
      else if (r === 1)
        events.push({
          index: i,
          kind: "message",
          role: "agent",
          input: "Next I will check the files.",
        });
      else if (r === 2)
        events.push({
          index: i,
          kind: "tool_call",
          tool: "Bash",
          command: c,
          input: JSON.stringify({ command: c }),
        });
      else
        events.push({
          index: i,
          kind: "tool_result",
          tool: "Bash",
          output: OUTPUT,
          exitCode: i % 9 === 0 ? 1 : 0,
        });
    }
    attempts.push({
      id: `bench-${a}`,
      source: { format: "fire-jsonl", path: "bench" },
      taskId: `task-${a % TASKS.length}`,
      taskText,
      arm: "baseline",
      outcome: "fail",
      events,
    });
  }
  return attempts;
}

/** The baseline: test every pattern of the portfolio once per tool event. */
function bareLoop(attempts: Attempt[], patterns: RegExp[]): number {
  let hits = 0;
  for (const a of attempts) {
    for (const e of a.events) {
      if (e.kind !== "tool_call" && e.kind !== "tool_result") continue;
      const text = e.command ?? e.output ?? "";
      for (const re of patterns) if (re.test(text)) hits++;
    }
  }
  return hits;
}

function timed<T>(f: () => T): [T, number] {
  const t0 = process.hrtime.bigint();
  const v = f();
  return [v, Number(process.hrtime.bigint() - t0) / 1e9];
}

export const replayBenchmark: Benchmark = {
  name: "replay",
  description:
    "replay events/s (reference portfolio) ÷ a bare loop testing every pattern per tool event",
  async run(log) {
    const { policies, errors } = loadPolicies([resolve(ROOT, "candidates/reference")]);
    if (errors.length > 0) throw new Error(errors.map((e) => e.format()).join("\n"));
    const patterns = policies.flatMap((p: CompiledPolicy) =>
      collectPatterns(p.candidate).map((s) => new RegExp(s.source, s.flags)),
    );
    const corpus = replayCorpus(TOTAL);
    const n = corpus.reduce((s, a) => s + a.events.length, 0);
    // warm both paths once on a slice so JIT state is comparable
    bareLoop(corpus.slice(0, 50), patterns);
    replayAttempts(policies, corpus.slice(0, 50));
    const [, bare] = timed(() => bareLoop(corpus, patterns));
    const [res, replay] = timed(() => replayAttempts(policies, corpus));
    const firings = res.attempts.reduce((s, a) => s + a.firings.length, 0);
    const rReplay = n / replay;
    const rBare = n / bare;
    log(
      `${n} events, ${patterns.length} patterns, ${firings} firings; replay ${Math.round(rReplay)} ev/s, bare ${Math.round(rBare)} ev/s`,
    );
    return [
      {
        target: "replay events/s ÷ bare pattern loop events/s",
        measured: rReplay / rBare,
        limit: 0.5,
        kind: "min",
        note: `${replay.toFixed(2)} s vs ${bare.toFixed(2)} s for ${n} events`,
      },
    ];
  },
};
