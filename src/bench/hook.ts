import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleHook, bundleHookScript, SCRIPT_MANIFEST_FILE } from "../build/bundle.js";
import { FIRE_CLI, installHook } from "../core/deploy/install.js";
import { readSettings, shellWords } from "../core/deploy/settings.js";
import { loadPolicies } from "../core/policy/load.js";
import { currentBundle, hookModuleUrl } from "../runtime/select.js";
import { RACY_NS } from "../runtime/verified-record.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** Node reads NODE_EXTRA_CA_CERTS at every start; this machine's bundle when it is unset. */
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** The environment with NODE_EXTRA_CA_CERTS set (to `file`) or removed. */
function caEnv(file: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (file) env.NODE_EXTRA_CA_CERTS = file;
  else delete env.NODE_EXTRA_CA_CERTS;
  return env;
}
const RUNS = Number(process.env.FIRE_BENCH_HOOK_RUNS ?? 40);
/** Issue 24's target: a hook call costs at most this many times a bare `node -e 0`. */
const LIMIT = 1.15;

/** A PreToolUse event exactly as Claude Code 2.1.332 sends it (real-clients fixture shape). */
function preToolUse(session: string, cwd: string): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: join(cwd, "transcript.jsonl"),
    cwd,
    permission_mode: "bypassPermissions",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "python3 -m http.server 8765 &", description: "start server" },
    tool_use_id: "toolu_bench",
  });
}

function prompt(session: string, cwd: string): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: join(cwd, "transcript.jsonl"),
    cwd,
    hook_event_name: "UserPromptSubmit",
    prompt: "Start a web server on port 8765 that keeps running after you finish, then verify it.",
  });
}

/**
 * A Codex 0.171 PostToolUse whose output string prints no exit status (a silent failed
 * `curl -sf`), so the hook looks the call up in its rollout: a 1 MiB one with the call's
 * item_completed record at the end (the new event mapping's slowest path).
 */
function codexPostToolUse(session: string, cwd: string): string {
  const rollout = join(cwd, "rollout-2026-12-01T09-00-00-bench.jsonl");
  const filler = `${JSON.stringify({ timestamp: "t", type: "response_item", payload: { type: "message", content: "x".repeat(900) } })}\n`;
  const done = JSON.stringify({
    timestamp: "t",
    type: "event_msg",
    payload: {
      type: "item_completed",
      item: { type: "CommandExecution", id: "call_bench", exit_code: 7 },
    },
  });
  writeFileSync(rollout, `${filler.repeat(1100)}${done}\n`);
  return JSON.stringify({
    session_id: session,
    turn_id: "turn-bench",
    transcript_path: rollout,
    cwd,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "curl -sf --max-time 3 http://127.0.0.1:8799/" },
    tool_response: "",
    tool_use_id: "call_bench",
  });
}

function timeRun(args: string[], input?: string, env?: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, encoding: "utf8", env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** The reference portfolio; the hook test fixture when the reference is not there yet. */
function portfolio(): { path: string; note: string } {
  const ref = join(ROOT, "candidates/reference");
  if (existsSync(ref) && readdirSync(ref).some((f) => /\.(json|ya?ml)$/.test(f)))
    return { path: ref, note: "reference portfolio" };
  return {
    path: join(ROOT, "test/runtime/fixtures/portfolio"),
    note: "TEST portfolio (reference missing)",
  };
}

export const hookBenchmark: Benchmark = {
  name: "hook",
  description:
    "fire hook wall time per event ÷ node -e 0 (interleaved, warm state and portfolio cache)",
  async run(log): Promise<BenchResult[]> {
    const ws = mkdtempSync(join(tmpdir(), "fire-bench-hook-"));
    const { path, note } = portfolio();
    const cli = FIRE_CLI; // what `fire hook install` puts in the harness settings
    const args = [cli, "hook", "--portfolio", path, "--workspace", ws];
    // `npm run build` bundles the hook; a later bare `tsc` leaves it stale (then unused).
    if (!hookModuleUrl().endsWith("/hook.bundle.mjs")) {
      await bundleHook();
      await bundleHookScript();
    }
    const script = currentBundle(join(ROOT, "dist/runtime"), SCRIPT_MANIFEST_FILE);
    const loaded = script
      ? "CommonJS hook script + V8 code cache"
      : hookModuleUrl().endsWith("/hook.bundle.mjs")
        ? "ES module bundle"
        : "unbundled";
    const verifiedDir = process.env.FIRE_VERIFIED_DIR;
    try {
      // what an install runs: the same policies frozen (fire freeze) into the workspace, and
      // the very command `fire hook install` writes (it follows the newest frozen portfolio)
      freeze(cli, path, ws);
      const frozenArgs = installedArgs(ws);
      // the hooks' record of verified portfolios (normally ~/.local/state/fire/verified)
      process.env.FIRE_VERIFIED_DIR = join(ws, "user-state", "verified");
      timeRun(args, prompt("bench", ws)); // warm: portfolio cache + session state file
      timeRun(args, preToolUse("bench", ws));
      // installed before a session starts: its files are past the racy window, so the first
      // event's verification is recorded (verified-record.ts)
      await new Promise((r) => setTimeout(r, Number(RACY_NS / 1_000_000n) + 500));
      timeRun(frozenArgs, prompt("bench-frozen", ws));
      const codexEvent = codexPostToolUse("bench-codex", ws);
      timeRun(args, codexEvent);
      const hook: number[] = [];
      const codex: number[] = [];
      const frozen: number[] = [];
      const bare: number[] = [];
      // the frozen portfolio with the CA variable set and unset, each against node -e 0 with
      // the same environment (Node parses the extra CA file at start, hook or not)
      const caFile = process.env.NODE_EXTRA_CA_CERTS || (existsSync(CA_BUNDLE) ? CA_BUNDLE : "");
      const ca = { set: caEnv(caFile), unset: caEnv(undefined) };
      const byCa = {
        set: { hook: [] as number[], bare: [] as number[] },
        unset: { hook: [] as number[], bare: [] as number[] },
      };
      for (let i = 0; i < RUNS; i++) {
        bare.push(timeRun(["-e", "0"]));
        hook.push(timeRun(args, preToolUse("bench", ws)));
        codex.push(timeRun(args, codexEvent));
        frozen.push(timeRun(frozenArgs, preToolUse("bench-frozen", ws)));
        for (const k of ["set", "unset"] as const) {
          byCa[k].bare.push(timeRun(["-e", "0"], undefined, ca[k]));
          byCa[k].hook.push(timeRun(frozenArgs, preToolUse("bench-frozen", ws), ca[k]));
        }
      }
      // the same frozen portfolio when every event hashes it (a changed file, or no record)
      process.env.FIRE_VERIFIED_DIR = "off";
      const hashed: number[] = [];
      for (let i = 0; i < Math.ceil(RUNS / 4); i++)
        hashed.push(timeRun(frozenArgs, preToolUse("bench-frozen", ws)));
      const f = median(frozen);
      const fh = median(hashed);
      const h = median(hook);
      const c = median(codex);
      const b = median(bare);
      log(
        `${RUNS} runs each; median fire hook ${h.toFixed(1)} ms (Codex PostToolUse with rollout lookup ${c.toFixed(1)} ms, frozen portfolio ${f.toFixed(1)} ms, ${fh.toFixed(1)} ms when it is hashed on every event), node -e 0 ${b.toFixed(1)} ms (${note})`,
      );
      return [
        {
          target: "fire hook per event ÷ node -e 0 (median)",
          measured: h / b,
          limit: LIMIT,
          kind: "max",
          note: `${h.toFixed(1)} / ${b.toFixed(1)} ms, ${note}, ${loaded}`,
        },
        {
          target: "fire hook per event, frozen portfolio as installed ÷ node -e 0",
          measured: f / b,
          limit: LIMIT,
          kind: "max",
          note: `${f.toFixed(1)} / ${b.toFixed(1)} ms, ${note} frozen, the command \`fire hook install\` writes (newest frozen portfolio of its workspace), its verification recorded, ${loaded}`,
        },
        ...(["set", "unset"] as const).map((k) => {
          const hk = median(byCa[k].hook);
          const bk = median(byCa[k].bare);
          return {
            target: `fire hook, frozen portfolio as installed, NODE_EXTRA_CA_CERTS ${k} ÷ node -e 0`,
            measured: hk / bk,
            limit: LIMIT,
            kind: "max" as const,
            note: `${hk.toFixed(1)} / ${bk.toFixed(1)} ms${k === "set" ? ` (${caFile || "no CA file here"})` : ""}, ${note} frozen, ${loaded}`,
          };
        }),
        {
          target: "fire hook per Codex PostToolUse, exit status from a 1 MiB rollout ÷ node -e 0",
          measured: c / b,
          limit: LIMIT,
          kind: "max",
          note: `${c.toFixed(1)} / ${b.toFixed(1)} ms, ${note}, ${loaded}`,
        },
      ];
    } finally {
      if (verifiedDir === undefined) delete process.env.FIRE_VERIFIED_DIR;
      else process.env.FIRE_VERIFIED_DIR = verifiedDir;
      rmSync(ws, { recursive: true, force: true });
    }
  },
};

/**
 * The arguments of the hook command `fire hook install --harness claude --project P -w ws`
 * writes for PreToolUse (its node and fire paths: this node, this build), without the mark.
 */
function installedArgs(ws: string): string[] {
  const project = join(ws, "project");
  installHook({ harness: "claude", project, workspace: ws });
  const settings = readSettings(join(project, ".claude", "settings.local.json"));
  const command = settings.hooks?.PreToolUse?.[0]?.hooks[0]?.command;
  const words = command === undefined ? undefined : shellWords(command);
  const mark = words?.indexOf("#") ?? -1;
  if (!words || mark < 2) throw new Error(`cannot read the installed hook command: ${command}`);
  if (words[0] !== process.execPath) throw new Error(`the install runs ${words[0]}, not this node`);
  return words.slice(1, mark);
}

/** Freezes every candidate of `portfolio` into `ws/portfolios/bench` with `fire freeze`. */
function freeze(cli: string, portfolio: string, ws: string): string {
  const { policies, errors } = loadPolicies([portfolio]);
  if (errors.length > 0) throw new Error(errors[0]?.format());
  cpSync(portfolio, join(ws, "candidates", "bench"), { recursive: true });
  const ids = policies.map((p) => p.key);
  const r = spawnSync(
    process.execPath,
    [
      cli,
      "freeze",
      ...ids,
      "--name",
      "bench",
      "--force",
      "--reason",
      "hook bench",
      "--workspace",
      ws,
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`fire freeze exited ${r.status}: ${r.stderr}`);
  return join(ws, "portfolios", "bench");
}
