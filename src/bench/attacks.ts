import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIRE_CLI } from "../core/deploy/install.js";
import { writeBigClaudeTrace } from "./big-trace.js";
import { fuzzPatterns } from "./pattern-fuzz.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const PORTFOLIO = join(ROOT, "test/runtime/fixtures/portfolio");
const SESSION_FIXTURE = join(
  ROOT,
  "test/fixtures/shared/real-clients/claude-rm-deny/session.jsonl",
);
const PATTERNS = Number(process.env.FIRE_BENCH_FUZZ ?? 1_000_000);
const CALLS = Number(process.env.FIRE_BENCH_TRACE_CALLS ?? 500_000); // 2·calls + 1 events

/** A hook child's wall time (ms). */
function run(args: string[], input?: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [FIRE_CLI, ...args], {
      env: { ...process.env, FIRE_STATE_DIR: "" },
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", fail);
    child.on("close", () => done(Number(process.hrtime.bigint() - t0) / 1e6));
    child.stdin.end(input ?? "");
  });
}

/** A CLI child's wall time (ms) and peak RSS (KiB, as `/usr/bin/time` reports it). */
async function runMeasured(args: string[]): Promise<{ ms: number; kib: number }> {
  const t0 = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const child = spawn("/usr/bin/time", ["-f", "%M", process.execPath, FIRE_CLI, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", fail);
    child.on("close", () =>
      done({
        ms: Number(process.hrtime.bigint() - t0) / 1e6,
        kib: Number(err.trim().split("\n").at(-1)) || Number.NaN,
      }),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

/** Median hook time (ms) of `n` events on a fresh session, in a state folder of `sessions`. */
async function hookAt(sessions: number, n: number): Promise<number> {
  const ws = mkdtempSync(join(tmpdir(), "fire-bench-sessions-"));
  try {
    const state = join(ws, ".fire/state");
    mkdirSync(state, { recursive: true });
    const body = JSON.stringify({ step: 3, policies: {} });
    for (let i = 0; i < sessions; i++) writeFileSync(join(state, `s${i}.json`), body);
    const args = ["hook", "--portfolio", PORTFOLIO, "--workspace", ws];
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const event = {
        session_id: `s${i % Math.max(1, sessions)}`,
        transcript_path: null,
        cwd: ws,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "ls" },
      };
      times.push(await run(args, JSON.stringify(event)));
    }
    return median(times);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

/**
 * Issue 27's "held" items at full size: a million fuzzed patterns against JavaScript's RegExp
 * (a count), a million-event trace imported (time and memory against a tenth of it: linear is
 * a ratio ≤ ~10), and the hook at 20 000 sessions against 10 (no per-event scan: ≈ 1).
 */
export const attacksBenchmark: Benchmark = {
  name: "attacks",
  description: `issue 27 at full size: ${PATTERNS} fuzzed patterns, a ${2 * CALLS + 1}-event trace, the hook at 20k sessions`,
  async run(log): Promise<BenchResult[]> {
    const out: BenchResult[] = [];
    const fuzz = fuzzPatterns(PATTERNS, 27);
    log(`fuzz: ${JSON.stringify({ ...fuzz, mismatches: fuzz.mismatches.slice(0, 3) })}`);
    out.push({
      target: "fuzzed patterns answering otherwise than RegExp",
      measured: fuzz.mismatched,
      limit: 0,
      kind: "max",
      note: `${fuzz.patterns} patterns, ${fuzz.compared} texts, ${fuzz.refused} refused; forced onto the linear engine ${fuzz.linearDiffers} differ`,
    });

    const dir = mkdtempSync(join(tmpdir(), "fire-bench-bigtrace-"));
    try {
      const sizes = [Math.max(1, Math.round(CALLS / 10)), CALLS];
      const measured: { ms: number; kib: number }[] = [];
      for (const calls of sizes) {
        const trace = join(dir, `t${calls}.jsonl`);
        writeBigClaudeTrace(SESSION_FIXTURE, trace, calls);
        const ws = join(dir, `w${calls}`);
        mkdirSync(ws);
        measured.push(await runMeasured(["import", "--json", trace, "-w", ws]));
        rmSync(trace, { force: true });
        log(`import ${2 * calls + 1} events: ${JSON.stringify(measured.at(-1))}`);
      }
      const [small, big] = measured as [{ ms: number; kib: number }, { ms: number; kib: number }];
      out.push({
        target: "import time, 10× the events ÷ 1×",
        measured: big.ms / small.ms,
        limit: 15,
        kind: "max",
        note: `${2 * CALLS + 1} events in ${(big.ms / 1000).toFixed(1)} s`,
      });
      out.push({
        target: "import peak memory, 10× the events ÷ 1×",
        measured: big.kib / small.kib,
        limit: 12,
        kind: "max",
        note: `${Math.round(big.kib / 1024)} MiB at ${2 * CALLS + 1} events`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const few = await hookAt(10, 15);
    const many = await hookAt(20_000, 15);
    out.push({
      target: "hook time at 20 000 sessions ÷ at 10",
      measured: many / few,
      limit: 1.5,
      kind: "max",
      note: `median ${many.toFixed(0)} ms vs ${few.toFixed(0)} ms`,
    });
    return out;
  },
};
