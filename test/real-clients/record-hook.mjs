#!/usr/bin/env node
// HOOKCMD for the real-client rig (../shared/realclients): hands the client's hook stdin to
// `node ARGS…` (fire's built hook), appends {ts, input, output} to $RC_HOOK_LOG (the rig's
// hook-events.jsonl shape), and passes fire's stdout, stderr and exit code back to the client.
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";

let raw = "";
try {
  raw = readFileSync(0, "utf8");
} catch {
  /* no stdin */
}
const r = spawnSync(process.execPath, process.argv.slice(2), { input: raw, encoding: "utf8" });
let input;
try {
  input = JSON.parse(raw);
} catch {
  input = { _unparsed: raw };
}
let output = null;
try {
  output = r.stdout.trim() ? JSON.parse(r.stdout) : null;
} catch {
  output = { _unparsed: r.stdout };
}
const log = process.env.RC_HOOK_LOG;
if (log)
  appendFileSync(
    log,
    `${JSON.stringify({ ts: new Date().toISOString(), hook: "fire", input, output })}\n`,
  );
process.stdout.write(r.stdout ?? "");
process.stderr.write(r.stderr ?? "");
process.exit(r.status ?? 1);
