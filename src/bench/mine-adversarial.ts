import { runDetectorsAll } from "../core/mine/detectors/index.js";
import { faultOf } from "../core/mine/faults/index.js";
import { heuristicLabel } from "../core/mine/heuristic.js";
import { Attempt, type AttemptInput } from "../core/model/attempt.js";
import type { Benchmark, BenchResult } from "./types.js";

/**
 * Texts built to make a backtracking pattern take its worst path: the words the detectors key
 * on (role words, stores, services, tools) with no partner near them, in short lines of every
 * line ending, long runs of one character, and unclosed quotes and fences. Repeated `n` times.
 */
function hostile(n: number): string {
  const unit = [
    `Please recover${"\r\nx".repeat(27)} it.\r\n`,
    "keep it running\r\n\r\n",
    "investigate ",
    `${" ".repeat(40)}\t\n`,
    "'unclosed `fence ```\n",
    "database\\\\\\\\",
    "sqlite3 -readonly ",
    "command not found: ",
    "1. 2. 3. - - # ",
    "\r".repeat(20),
  ].join("");
  return unit.repeat(n);
}

/** Ordinary prose of the same length as `hostile(n)`: what mining such a text should cost. */
function plain(n: number): string {
  const words = "the agent edited the parser and ran the tests before it stopped ";
  const len = hostile(n).length;
  return words.repeat(Math.ceil(len / words.length)).slice(0, len);
}

/** One failed attempt whose task, commands and outputs are all the given text. */
function attempt(n: number, make: (n: number) => string = hostile): Attempt {
  const text = make(n);
  const input: AttemptInput = {
    id: `hostile-${n}`,
    source: { format: "fire-jsonl", path: `/bench/hostile-${n}.jsonl` },
    taskId: `hostile-${n}`,
    taskText: text,
    outcome: "fail",
    reward: 0,
    verifierOutput: text,
    events: [
      { index: 0, kind: "prompt", role: "user", input: text },
      { index: 1, kind: "tool_call", tool: "bash", command: text, input: text, callId: "c1" },
      { index: 2, kind: "tool_result", tool: "bash", output: text, exitCode: 1, callId: "c1" },
      { index: 3, kind: "message", role: "agent", input: text },
      { index: 4, kind: "stop" },
    ],
  };
  return Attempt.parse(input);
}

/** Detectors, faults and the heuristic labeller over one attempt: ms (least of a few runs). */
function mineMs(a: Attempt, rounds = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const hits = runDetectorsAll([a]).get(a.id) ?? [];
    faultOf(a);
    heuristicLabel(a, hits);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const SMALL = Number(process.env.FIRE_BENCH_HOSTILE ?? 200);

export const mineAdversarialBenchmark: Benchmark = {
  name: "mine-adversarial",
  description: `mining an attempt of hostile text (${SMALL} and ${8 * SMALL} repeats): the detectors' patterns stay linear`,
  async run(log): Promise<BenchResult[]> {
    // warm the code paths once
    mineMs(attempt(10), 1);
    const small = mineMs(attempt(SMALL));
    const big = mineMs(attempt(8 * SMALL));
    const prose = mineMs(attempt(SMALL, plain));
    log(
      `hostile text: ${SMALL}× in ${small.toFixed(1)} ms, ${8 * SMALL}× in ${big.toFixed(1)} ms; prose of ${SMALL}×'s length in ${prose.toFixed(1)} ms`,
    );
    return [
      {
        // a pattern that backtracks on some input costs far more there than on prose, even
        // when its window is bounded (then its cost grows with the text no faster than prose's)
        target: "mining hostile text ÷ mining prose of the same length",
        measured: small / prose,
        limit: 10,
        kind: "max",
        note: `${small.toFixed(0)} ms vs ${prose.toFixed(0)} ms`,
      },
      {
        target: "mining hostile text, 8× the text ÷ 1×",
        measured: big / small,
        limit: 16,
        kind: "max",
        note: `${small.toFixed(0)} ms vs ${big.toFixed(0)} ms (linear is 8; a backtracking pattern grows far faster)`,
      },
    ];
  },
};
