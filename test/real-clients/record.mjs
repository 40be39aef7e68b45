#!/usr/bin/env node
// Runs one real-client case: the REAL Claude Code or Codex CLI (the pinned versions) against the
// rig's scripted model (../shared/realclients), with fire's BUILT hook as the client's hook for
// every event (through record-hook.mjs, which keeps the exact stdin and fire's answer).
//
// Usage: node test/real-clients/record.mjs CLIENT CASE OUTDIR [--fixture DIR]
//   CLIENT  claude | codex;  CASE  a script name in test/real-clients/scripts/ (without .json)
//   OUTDIR  the rig's output folder (replaced); with --fixture DIR, the hook stdin, the client's
//           session logs and fire's hook log are also kept there, long strings trimmed with the
//           rig's trim-jsonl.mjs.
// Clients: CLAUDE_BIN / CODEX_BIN, else FIRE_RC_CLIENTS/node_modules/.bin/{claude,codex}.
// Rig: FIRE_RC_RIG, else <repo>/../shared/realclients (read-only: it is run, never changed).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
export const RIG = resolve(process.env.FIRE_RC_RIG ?? join(REPO, "../shared/realclients"));
export const PORTFOLIO = join(REPO, "candidates/reference");
const TRIM = 1000;
/** Every event fire answers, per client (Codex has no PostToolUseFailure / SubagentStop). */
const EVENTS = {
  claude:
    "SessionStart UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure Stop SubagentStop SessionEnd",
  codex: "SessionStart UserPromptSubmit PreToolUse PostToolUse Stop SessionEnd",
};

/** The client binary to run, or undefined when it is not installed. */
export function clientBin(client) {
  const envBin = client === "claude" ? process.env.CLAUDE_BIN : process.env.CODEX_BIN;
  if (envBin) return existsSync(envBin) ? envBin : undefined;
  const dir = process.env.FIRE_RC_CLIENTS;
  if (dir) {
    const bin = join(dir, "node_modules/.bin", client);
    return existsSync(bin) ? bin : undefined;
  }
  const r = spawnSync("sh", ["-c", `command -v ${client}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The version a client reports (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`). */
export function clientVersion(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Runs one case; returns the rig's exit code. */
export function runCase(client, name, out) {
  const bin = clientBin(client);
  if (!bin) throw new Error(`${client} is not installed (set ${client.toUpperCase()}_BIN)`);
  rmSync(out, { recursive: true, force: true });
  const work = join(out, "work");
  mkdirSync(work, { recursive: true });
  const script = join(out, "script.json");
  const text = readFileSync(join(HERE, "scripts", `${name}.json`), "utf8");
  writeFileSync(script, text.replaceAll("WORKDIR", work));
  const fire = join(out, "fire");
  const hookCmd = [
    "node",
    join(HERE, "record-hook.mjs"),
    join(REPO, "dist/cli/main.js"),
    "hook",
    "--portfolio",
    PORTFOLIO,
    "--workspace",
    fire,
  ].join(" ");
  const env = {
    ...process.env,
    RC_OUT: join(out, "rc"),
    RC_TIMEOUT: process.env.RC_TIMEOUT ?? "90",
    RC_HOOK_EVENTS: EVENTS[client],
    [client === "claude" ? "CLAUDE_BIN" : "CODEX_BIN"]: bin,
  };
  const runner = join(RIG, client === "claude" ? "run-claude.sh" : "run-codex.sh");
  const r = spawnSync("bash", [runner, script, work, hookCmd], { env, encoding: "utf8" });
  writeFileSync(join(out, "rig-stderr.txt"), `${r.stderr ?? ""}${r.stdout ?? ""}`);
  return r.status ?? 1;
}

function jsonlFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".jsonl"))
    .map((d) => join(d.parentPath ?? d.path, d.name));
}

function trim(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  const r = spawnSync("node", [join(RIG, "trim-jsonl.mjs"), from, to, String(TRIM)], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`trim-jsonl failed on ${from}: ${r.stderr}`);
}

/** Keeps a run's hook stdin, session logs and fire's decisions as a fixture folder. */
export function keepFixture(out, dest) {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  trim(join(out, "rc/hook-events.jsonl"), join(dest, "hook-events.jsonl"));
  trim(join(out, "fire/.fire/hook-log.jsonl"), join(dest, "hook-log.jsonl"));
  const sessions = join(out, "rc/sessions");
  for (const f of jsonlFiles(sessions)) trim(f, join(dest, "sessions", relative(sessions, f)));
  cpSync(join(out, "script.json"), join(dest, "script.json"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [client, name, out, flag, dest] = process.argv.slice(2);
  if (!client || !name || !out) {
    console.error("usage: record.mjs claude|codex CASE OUTDIR [--fixture DIR]");
    process.exit(2);
  }
  const code = runCase(client, name, resolve(out));
  console.log(`${client} ${name}: rig exit ${code}`);
  if (flag === "--fixture" && dest) keepFixture(resolve(out), resolve(dest));
  process.exit(code);
}
