import { spawn } from "node:child_process";
import { cpSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Attempt } from "../core/model/attempt.js";
import { baseAttempts, scaledWorkspace } from "./tui-workspace.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const CHILD = fileURLToPath(new URL("./tui-child.js", import.meta.url));
/** Workspace sizes; `FIRE_BENCH_TUI_SIZES=2000,20000` for a quick run. */
const SIZES = (process.env.FIRE_BENCH_TUI_SIZES ?? "10000,100000").split(",").map(Number);
/** Bare and workbench opens alternate this many times (fresh processes); the fastest counts. */
const ROUNDS = Number(process.env.FIRE_BENCH_ROUNDS ?? 2);
const PREVIEW_ATTEMPTS = 1_000;

type Report = Record<string, number>;

function child(args: string[]): Promise<Report> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, ["--max-old-space-size=8192", CHILD, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      // React's production build, as `fire` loads the workbench (bare Ink gets the same)
      env: { ...process.env, NO_COLOR: "1", NODE_ENV: "production" },
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("close", (code) =>
      code === 0
        ? done(JSON.parse(out.trim().split("\n").pop() ?? "{}") as Report)
        : fail(new Error(`tui child ${args[0]} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

const min = (xs: number[]) => Math.min(...xs);
const ms = (x: number) => `${x.toFixed(0)} ms`;

/**
 * The workbench at scale. Warm workspaces of 10,000 and 100,000 attempts (real-format
 * attempts from the demo generator, repeated under new ids; read cold once, which writes
 * the parse cache and the workspace index) are opened in fresh processes: the first
 * frame (a progress line) and the first usable frame (the triage list with its counts)
 * as ratios to a bare Ink app's first frame in a fresh process (the fastest open: from the
 * glance the first open keeps; the first open's, from the index, is in the note); peak RSS per attempt (over
 * the workbench's peak on the small base workspace, whose excess over a bare Ink app is
 * its fixed memory, reported on its own) and at the largest size in all; the latency of list moves, search keystrokes and `q` at the largest size, and Ctrl-C
 * during the first read. Plus the live preview's refresh over 1,000 attempts.
 */
export const tuiBenchmark: Benchmark = {
  name: "tui",
  description: `workbench on warm ${SIZES.join(" / ")}-attempt workspaces`,
  async run(log) {
    const dir = await mkdtemp(join(tmpdir(), "fire-bench-tui-"));
    try {
      const baseDir = join(dir, "base");
      const base = await baseAttempts(baseDir, 300);
      cpSync(join(ROOT, "candidates"), join(baseDir, "candidates"), { recursive: true });
      log(`base: ${base.length} attempts of real formats`);
      // The workbench's fixed memory (its code, screens, candidates, V8's young generation):
      // its peak on the small base workspace, over a bare Ink app's.
      const bareRss: number[] = [];
      const baseRss: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        bareRss.push((await child(["bare"])).maxRss!);
        baseRss.push((await child(["open", baseDir, String(base.length), ""])).maxRss!);
      }
      const fixed = min(baseRss);
      const results: BenchResult[] = [
        {
          target: `workbench fixed memory: peak RSS on ${base.length} attempts over a bare Ink app (MB)`,
          measured: (fixed - min(bareRss)) / 1e6,
          limit: 64,
          kind: "max",
          note: `${(fixed / 1e6).toFixed(0)} MB peak, bare Ink ${(min(bareRss) / 1e6).toFixed(0)} MB`,
        },
      ];
      const largest = Math.max(...SIZES);
      for (const size of SIZES) {
        const ws = await scaledWorkspace(join(dir, `w${size}`), base, size);
        cpSync(join(ROOT, "candidates"), join(ws, "candidates"), { recursive: true });
        const t0 = performance.now();
        const built = await child(["build", ws]);
        log(`${size}: cold read ${ms(performance.now() - t0)} (${built.attempts} attempts)`);
        // decisions and the editor are measured on the smallest size (10,000 by default)
        const decideHere = size === Math.min(...SIZES);
        if (decideHere) log(`${size}: mined ${(await child(["mine", ws])).clusters} clusters`);
        const bare: number[] = [];
        const opens: Report[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const bareRun = await child(["bare"]);
          bare.push(bareRun.firstFrame!);
          const what = [size === largest ? "keys" : "", decideHere ? "decide" : ""].join(",");
          opens.push(await child(["open", ws, String(size), what]));
        }
        const b = min(bare);
        const first = min(opens.map((o) => o.firstFrame!));
        const usable = min(opens.map((o) => o.usableFrame!));
        const rss = min(opens.map((o) => o.maxRss!));
        log(
          `${size}: bare Ink frame ${ms(b)}, first frame ${ms(first)}, usable ${ms(usable)}, peak RSS ${(rss / 1e6).toFixed(0)} MB`,
        );
        const note = `bare ${ms(b)}, fire ${ms(first)}; progress line ${opens.every((o) => o.hadProgress) ? "shown" : "MISSING"}`;
        results.push(
          {
            target: `${size} attempts: first frame ÷ bare Ink first frame`,
            measured: opens.every((o) => o.hadProgress) ? first / b : Number.NaN,
            limit: 1.3,
            kind: "max",
            note,
          },
          {
            target: `${size} attempts: first usable frame ÷ bare Ink first frame`,
            measured: usable / b,
            limit: 1.5,
            kind: "max",
            // the first open after the cold read has no glance yet (it keeps one): the index
            note: `usable ${ms(usable)}, bare ${ms(b)}; first open (no glance yet) ${ms(opens[0]!.usableFrame!)}`,
          },
          {
            // over the workbench's peak on the base workspace: what each attempt adds
            // (5 KB an attempt is 500 MB at 100,000)
            target: `${size} attempts: peak RSS per attempt over the ${base.length}-attempt peak (KB)`,
            measured: (rss - fixed) / (size - base.length) / 1024,
            limit: 5,
            kind: "max",
            note: `${(rss / 1e6).toFixed(0)} MB peak, ${(fixed / 1e6).toFixed(0)} MB on ${base.length} attempts`,
          },
        );
        if (decideHere) {
          results.push(
            {
              target: `${size} attempts: cluster rename, Enter → frame with the new name (ms)`,
              measured: min(opens.map((o) => o.decision!)),
              limit: 150,
              kind: "max",
            },
            {
              target: `${size} attempts: cluster exclude, Enter → frame with the new excluded count (ms)`,
              measured: min(opens.map((o) => o.exclude!)),
              limit: 150,
              kind: "max",
            },
            {
              target: `${size} attempts: undo of the exclude, u → frame with the count before (ms)`,
              measured: min(opens.map((o) => o.undo!)),
              limit: 150,
              kind: "max",
            },
            {
              target: `${size} attempts: editor open, Enter → frame with the fields (ms)`,
              measured: min(opens.map((o) => o.editorOpen!)),
              limit: 200,
              kind: "max",
            },
          );
        }
        if (size === largest) {
          const keys = opens[opens.length - 1]!;
          results.push(
            {
              target: `${size} attempts: peak RSS (MB)`,
              measured: rss / 1e6,
              limit: 500,
              kind: "max",
            },
            {
              target: `${size} attempts: list move keystroke (ms)`,
              measured: min(opens.map((o) => o.listMove!)),
              limit: 50,
              kind: "max",
            },
            {
              target: `${size} attempts: search keystroke (ms)`,
              measured: min(opens.map((o) => o.searchKey!)),
              limit: 50,
              kind: "max",
              note: "2nd–5th letter of “serve” (the 1st builds the search index)",
            },
            {
              target: `${size} attempts: q → quit (ms)`,
              measured: keys.quit!,
              limit: 200,
              kind: "max",
            },
          );
          const early = await child(["quit", ws]);
          results.push({
            target: `${size} attempts: Ctrl-C during the first read → quit (ms)`,
            measured: early.quitEarly!,
            limit: 200,
            kind: "max",
          });
        }
        await rm(ws, { recursive: true, force: true });
      }
      results.push(await previewRefresh(base));
      return results;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** Live preview: compile + replay of an edited candidate over 1,000 attempts. */
async function previewRefresh(base: readonly Attempt[]): Promise<BenchResult> {
  const { previewText } = await import("../ui/data/preview.js");
  const file = join(ROOT, "candidates/reference/service-persistence.yaml");
  const text = readFileSync(file, "utf8");
  const some = Array.from({ length: PREVIEW_ATTEMPTS }, (_, i) => {
    const a = base[i % base.length]!;
    return { ...a, id: `${a.id}-p${i}` };
  });
  let preview = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    previewText(text.replace("keep|leave", `keep|leave|hold${i}`), file, some, {
      pool: [],
      seed: 1,
    });
    preview = Math.min(preview, performance.now() - t0);
  }
  return {
    target: `live-preview refresh on ${some.length} attempts (ms)`,
    measured: preview,
    limit: 200,
    kind: "max",
  };
}
