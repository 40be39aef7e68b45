import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIRE_CLI } from "../core/deploy/install.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const EVENTS = Number(process.env.FIRE_BENCH_CONCURRENT ?? 300);
/** Counts every tool call (`increment: calls`): each event must be applied exactly once. */
const PORTFOLIO = join(ROOT, "test/runtime/fixtures/portfolio");
const SESSION = "bench-concurrent";

function event(ws: string, name: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: null,
    cwd: ws,
    hook_event_name: name,
    ...extra,
  });
}

/** One `fire hook` process; resolves with its wall time (ms). */
function runHook(ws: string, input: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const cli = FIRE_CLI; // what `fire hook install` puts in the harness settings
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [cli, "hook", "--portfolio", PORTFOLIO, "--workspace", ws],
      {
        env: { ...process.env, FIRE_STATE_DIR: "" },
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    child.on("error", fail);
    child.on("close", () => done(Number(process.hrtime.bigint() - t0) / 1e6));
    child.stdin.end(input);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * Issue 16 item 2: EVENTS hook processes at once on ONE session. Every event must be applied
 * exactly once: lost = events whose update is missing (state step / counter short, or no
 * distinct event index), duplicated = an index or a count seen more than once.
 */
export const hookConcurrencyBenchmark: Benchmark = {
  name: "hook-concurrency",
  description: `${EVENTS} concurrent fire hook events on one session: lost / duplicated updates, median time`,
  async run(log): Promise<BenchResult[]> {
    const ws = mkdtempSync(join(tmpdir(), "fire-bench-conc-"));
    try {
      await runHook(ws, event(ws, "UserPromptSubmit", { prompt: "keep the build directory" }));
      const call = event(ws, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
      const times = await Promise.all(Array.from({ length: EVENTS }, () => runHook(ws, call)));
      const state = JSON.parse(
        readFileSync(join(ws, ".fire/state", `${SESSION}.json`), "utf8"),
      ) as {
        step: number;
        policies: Record<string, { counters: Record<string, number> }>;
      };
      const entries = readFileSync(join(ws, ".fire/hook-log.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { eventIndex: number | null; error?: string });
      const indexes = entries
        .filter((e) => e.eventIndex !== null)
        .map((e) => e.eventIndex as number);
      const distinct = new Set(indexes).size;
      const calls = state.policies["test.rm-guard@1"]?.counters.calls ?? 0;
      const lost = Math.max(EVENTS + 1 - state.step, EVENTS - calls, EVENTS + 1 - distinct, 0);
      const duplicated = Math.max(indexes.length - distinct, calls - EVENTS, 0);
      const faults = entries.filter((e) => e.error !== undefined).length;
      const why = new Map<string, number>();
      for (const e of entries)
        if (e.error !== undefined) {
          const k = e.error.replace(/\d+/g, "N");
          why.set(k, (why.get(k) ?? 0) + 1);
        }
      for (const [k, n] of why) log(`${n}× fault: ${k}`);
      const med = median(times);
      log(
        `${EVENTS} events: state step ${state.step} (want ${EVENTS + 1}), counter ${calls}, ${distinct} distinct indexes, ${faults} faults; median ${med.toFixed(0)} ms per event`,
      );
      return [
        {
          target: "lost updates",
          measured: lost,
          limit: 0,
          kind: "max",
          note: `${faults} faults logged`,
        },
        { target: "duplicated updates", measured: duplicated, limit: 0, kind: "max" },
        {
          target: `median ms per event (${EVENTS} at once)`,
          measured: med,
          limit: 60_000,
          kind: "max",
          note: "ceiling = the harness's hook timeout",
        },
      ];
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
};
