import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { decisionsPath } from "../core/mine/decisions.js";
import { baseAttempts, scaledWorkspace } from "./tui-workspace.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** The `fire` bin measured; FIRE_BENCH_CLI_BIN names another build's (to compare two builds). */
const BIN = process.env.FIRE_BENCH_CLI_BIN ?? join(ROOT, "dist/cli/fire.cjs");
/** Workspace sizes; `FIRE_BENCH_CLI_SIZES=1000,10000` for a quicker run. */
const SIZES = (process.env.FIRE_BENCH_CLI_SIZES ?? "1000,10000,100000").split(",").map(Number);
/** Each command and `node -e 0` alternate this many times (fresh processes); the fastest counts. */
const ROUNDS = Number(process.env.FIRE_BENCH_ROUNDS ?? 3);
/** Read commands: ≤ 2.5× `node -e 0` up to 10,000 attempts, ≤ 5× at 100,000. */
const readLimit = (size: number) => (size <= 10_000 ? 2.5 : 5);

interface Timed {
  ms: number;
  /** CPU time (user + system) of the process, ms: what a command costs on a loaded machine. */
  cpu: number;
  /** Peak resident memory of the process, bytes. */
  rss: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A preload that writes the process's CPU time (µs) and peak RSS (KB) to FIRE_BENCH_CPU_FILE
 * at exit: the same for `node -e 0` and `fire`, so the two cost ratios are taken alike.
 */
const CPU_PRELOAD = `const { writeFileSync } = require("node:fs");
process.on("exit", () => {
  const u = process.cpuUsage();
  const rss = process.resourceUsage().maxRSS;
  try { writeFileSync(process.env.FIRE_BENCH_CPU_FILE, (u.user + u.system) + " " + rss); } catch {}
});
`;

let preload: string | undefined;

function run(args: string[], cwd: string): Timed {
  if (!preload) {
    preload = join(mkdtempSync(join(tmpdir(), "fire-bench-cpu-")), "cpu.cjs");
    writeFileSync(preload, CPU_PRELOAD);
  }
  const cpuFile = join(dirname(preload), "cpu.txt");
  rmSync(cpuFile, { force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--require", preload, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", FIRE_BENCH_CPU_FILE: cpuFile },
  });
  const ms = performance.now() - t0;
  let cpu = Number.NaN;
  let rss = Number.NaN;
  try {
    const [us, kb] = readFileSync(cpuFile, "utf8").split(" ").map(Number);
    cpu = (us ?? Number.NaN) / 1000;
    rss = (kb ?? Number.NaN) * 1024;
  } catch {
    /* no CPU figure: NaN */
  }
  return { ms, cpu, rss, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const fire = (args: string[], cwd: string): Timed => {
  const r = run([BIN, ...args], cwd);
  if (r.status !== 0)
    throw new Error(`fire ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return r;
};

/**
 * The fastest of ROUNDS runs of `fire <args>` and of `node -e 0`, alternated so both see the
 * same load; `args` may change per round (a decision is a new decision each time).
 */
function ratio(
  args: (round: number) => string[],
  cwd: string,
): { fire: number; node: number; fireCpu: number; nodeCpu: number; rss: number } {
  let best = Number.POSITIVE_INFINITY;
  let rss = 0;
  let node = Number.POSITIVE_INFINITY;
  let fireCpu = Number.POSITIVE_INFINITY;
  let nodeCpu = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const n = run(["-e", "0"], cwd);
    const f = fire(args(r), cwd);
    node = Math.min(node, n.ms);
    nodeCpu = Math.min(nodeCpu, n.cpu);
    best = Math.min(best, f.ms);
    fireCpu = Math.min(fireCpu, f.cpu);
    rss = Math.max(rss, f.rss);
  }
  return { fire: best, node, fireCpu, nodeCpu, rss };
}

/**
 * Reads every source file of a workspace and JSON.parses it (line by line for JSONL): the
 * baseline a cold read is held to, in a process of its own like `fire`'s.
 */
const PARSE_ALL = `const { readdirSync, readFileSync, statSync } = require("node:fs");
const { join } = require("node:path");
let bytes = 0;
const walk = (p) => {
  if (statSync(p).isDirectory()) { for (const n of readdirSync(p)) walk(join(p, n)); return; }
  const text = readFileSync(p, "utf8");
  bytes += Buffer.byteLength(text);
  if (p.endsWith(".jsonl")) { for (const l of text.split("\\n")) if (l.trim()) JSON.parse(l); }
  else if (p.endsWith(".json")) JSON.parse(text);
};
walk(process.argv[1]);
process.stdout.write(String(bytes));
`;

/**
 * The cold read (no parse cache, no index) of `fire attempts --json`, alternated with a bare
 * JSON.parse of the same files in a fresh process, ROUNDS times (the fastest of each counts):
 * throughput as a ratio of the two process times (the issue: ≥ 0.9), and at the largest size
 * (where the corpus, not fire's fixed memory, decides) peak RSS over a bare `node -e 0`'s per
 * corpus byte (≤ 1.5). The last cold read leaves the cache and the index for the warm reads.
 */
function coldImport(
  ws: string,
  size: number,
  memory: boolean,
): { cold: Timed; rows: BenchResult[] } {
  let cold: Timed | undefined;
  let parse: Timed | undefined;
  let node: Timed | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    rmSync(join(ws, ".fire"), { recursive: true, force: true });
    const f = fire(["attempts", "--json"], ws);
    const p = run(["-e", PARSE_ALL, join(ws, "traces")], ws);
    const n = run(["-e", "0"], ws);
    if (p.status !== 0) throw new Error(`JSON.parse baseline exited ${p.status}: ${p.stderr}`);
    if (!cold || f.ms < cold.ms) cold = f;
    if (!parse || p.ms < parse.ms) parse = p;
    if (!node || n.rss < node.rss) node = n;
  }
  if (!cold || !parse || !node) throw new Error("no rounds (FIRE_BENCH_ROUNDS ≥ 1)");
  const bytes = Number(parse.stdout);
  return {
    cold,
    rows: [
      {
        target: `${size} attempts: cold read throughput ÷ JSON.parse throughput`,
        measured: parse.ms / cold.ms,
        limit: 0.9,
        kind: "min",
        note: `fire attempts --json ${ms(cold.ms)}, JSON.parse ${ms(parse.ms)} over ${mb(bytes)} (process times); CPU ${(parse.cpu / cold.cpu).toFixed(2)}`,
      },
      ...(memory ? [coldMemory(size, cold, node, bytes)] : []),
    ],
  };
}

function coldMemory(size: number, cold: Timed, node: Timed, bytes: number): BenchResult {
  return {
    target: `${size} attempts: cold read peak RSS over node's ÷ corpus bytes`,
    measured: (cold.rss - node.rss) / bytes,
    limit: 1.5,
    kind: "max",
    note: `${mb(cold.rss)} peak, node -e 0 ${mb(node.rss)}, corpus ${mb(bytes)}`,
  };
}

/** The note of a ratio: wall times, and the CPU ratio (steadier when the machine is loaded). */
const noteOf = (r: ReturnType<typeof ratio>) =>
  `${ms(r.fire)}, node ${ms(r.node)}; CPU ${(r.fireCpu / r.nodeCpu).toFixed(2)}× (${ms(r.fireCpu)} / ${ms(r.nodeCpu)})`;

const ms = (x: number) => `${x.toFixed(0)} ms`;
const mb = (x: number) => `${(x / 1e6).toFixed(0)} MB`;

/**
 * Merges, one each round, then as many undos: the first round merges the renamed cluster with
 * one not excluded, under a name; each later round merges that with one more. The undos then
 * take the merges back, newest first.
 */
function mergeAndUndo(
  ws: string,
  size: number,
  ids: readonly string[],
  log: (line: string) => void,
): BenchResult[] {
  const first = ids[0];
  const others = ids.slice(1 + ROUNDS, 1 + 2 * ROUNDS);
  if (!first || others.length < ROUNDS) {
    log(`${size}: fewer than ${2 * ROUNDS + 1} clusters mined; no merge or undo measured`);
    return [];
  }
  const name = "bench merged";
  const merge = ratio(
    (i) => ["cluster", "merge", i === 0 ? first : name, others[i]!, "--name", name],
    ws,
  );
  const merged = readFileSync(decisionsPath(ws), "utf8").split(`"name": "${name}"`).length - 1;
  const rows: BenchResult[] = [
    {
      target: `${size} attempts: fire cluster merge ÷ node -e 0`,
      measured: merged === ROUNDS ? merge.fire / merge.node : Number.NaN,
      limit: 2.5,
      kind: "max",
      note: noteOf(merge),
    },
  ];
  // a build without `fire cluster undo` (FIRE_BENCH_CLI_BIN of an older one) measures none
  if (!fire(["cluster", "--help"], ws).stdout.includes("undo")) {
    log(`${size}: this build has no fire cluster undo`);
    return rows;
  }
  const undo = ratio(() => ["cluster", "undo"], ws);
  const left = readFileSync(decisionsPath(ws), "utf8").includes(`"name": "${name}"`);
  rows.push({
    target: `${size} attempts: fire cluster undo ÷ node -e 0`,
    measured: left ? Number.NaN : undo.fire / undo.node,
    limit: 2.5,
    kind: "max",
    note: noteOf(undo),
  });
  return rows;
}

/**
 * What a user feels at the command line, as ratios to a bare `node -e 0` measured in the
 * same run: `fire --help`, and on workspaces of each size the cold read (against a bare
 * JSON.parse of the same files; its memory per corpus byte at the largest size), then, warm
 * (read once, mined once), the read commands (triage, attempts, clusters, route, show), their
 * peak memory and cluster decisions (rename, exclude, merge, undo).
 */
export const cliBenchmark: Benchmark = {
  name: "cli",
  description: `fire --help; cold read, read commands and a cluster decision on ${SIZES.join(" / ")}-attempt workspaces`,
  async run(log) {
    const dir = await mkdtemp(join(tmpdir(), "fire-bench-cli-"));
    try {
      const results: BenchResult[] = [];
      const help = ratio(() => ["--help"], dir);
      results.push({
        target: "fire --help ÷ node -e 0",
        measured: help.fire / help.node,
        limit: 1.3,
        kind: "max",
        note: noteOf(help),
      });
      const base = await baseAttempts(join(dir, "base"), 300);
      log(`base: ${base.length} attempts of real formats`);
      for (const size of SIZES) {
        const ws = await scaledWorkspace(join(dir, `w${size}`), base, size);
        cpSync(join(ROOT, "candidates"), join(ws, "candidates"), { recursive: true });
        const { cold, rows } = coldImport(ws, size, size === Math.max(...SIZES));
        results.push(...rows);
        const mined = fire(["mine", "--labeler", "heuristic", "--json"], ws);
        log(`${size}: cold read ${ms(cold.ms)}, mine ${ms(mined.ms)}`);
        const first = (JSON.parse(cold.stdout) as { id: string }[])[0]?.id ?? "";
        const ids = (
          (JSON.parse(mined.stdout) as { clusters?: { id: string }[] }).clusters ?? []
        ).map((c) => c.id);
        const cluster = ids[0];
        const reads: [string, string[]][] = [
          ["triage", ["triage"]],
          ["attempts", ["attempts"]],
          ["clusters", ["clusters"]],
          ["route", ["route"]],
          ["show", ["show", first]],
        ];
        for (const [, args] of reads) fire(args, ws); // warm: whatever the first read keeps
        let peak = { rss: 0, name: "" };
        for (const [name, args] of reads) {
          const r = ratio(() => args, ws);
          if (r.rss > peak.rss) peak = { rss: r.rss, name };
          log(`${size}: ${name} ${ms(r.fire)} (node ${ms(r.node)})`);
          results.push({
            target: `${size} attempts: fire ${name} ÷ node -e 0`,
            measured: r.fire / r.node,
            limit: readLimit(size),
            kind: "max",
            note: noteOf(r),
          });
        }
        results.push({
          target: `${size} attempts: peak RSS of a read command (MB)`,
          measured: peak.rss / 1e6,
          limit: 500,
          kind: "max",
          note: `highest: fire ${peak.name}`,
        });
        if (cluster) {
          const r = ratio((i) => ["cluster", "rename", cluster, `bench name ${i}`], ws);
          // the decision is in the log and the next read shows it
          const shown = readFileSync(decisionsPath(ws), "utf8");
          results.push({
            target: `${size} attempts: fire cluster rename ÷ node -e 0`,
            measured: shown.includes(`bench name ${ROUNDS - 1}`) ? r.fire / r.node : Number.NaN,
            limit: 2.5,
            kind: "max",
            note: noteOf(r),
          });
        } else log(`${size}: no cluster mined; no decision measured`);
        // an exclude of another cluster each round (an excluded cluster is gone)
        const others = ids.slice(1, 1 + ROUNDS);
        if (others.length === ROUNDS) {
          const r = ratio((i) => ["cluster", "exclude", others[i]!, "--reason", `bench ${i}`], ws);
          const shown = readFileSync(decisionsPath(ws), "utf8");
          results.push({
            target: `${size} attempts: fire cluster exclude ÷ node -e 0`,
            measured: shown.includes(`bench ${ROUNDS - 1}"`) ? r.fire / r.node : Number.NaN,
            limit: 2.5,
            kind: "max",
            note: noteOf(r),
          });
        } else log(`${size}: fewer than ${ROUNDS + 1} clusters mined; no exclude measured`);
        results.push(...mergeAndUndo(ws, size, ids, log));
        await rm(ws, { recursive: true, force: true });
      }
      return results;
    } finally {
      await rm(dir, { recursive: true, force: true });
      if (preload) await rm(dirname(preload), { recursive: true, force: true });
      preload = undefined;
    }
  },
};
