import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import writeFileAtomic from "write-file-atomic";
import { loadFrozenPortfolio } from "../freeze/verify.js";
import { policyKey } from "../policy/key.js";
import { linearCandidate } from "../policy/linear-candidate.js";
import { sha256Hex } from "../screening/canonical.js";

/**
 * `fire export --portfolio NAME --format failproofai`: the frozen portfolio as a failproofai
 * custom policy (`customPolicies.add({name, match: {events}, fn})` returning `allow()`,
 * `deny(msg)` or `instruct(msg)` — failproofai's documented policy API). fire's policies stay
 * data: the module loads them from a sidecar JSON (`<name>.portfolio.json`, hash-checked on
 * load) and runs them with a copy of fire's own evaluator (the compiled, dependency-free
 * `core/policy` modules and the hook's event mapping).
 *
 * Decisions equal `fire hook`'s where failproofai's API allows: the whole portfolio is ONE
 * failproofai policy that steps every fire policy over every event with one session state,
 * exactly as the hook does. Registering one failproofai policy per fire policy would not:
 * failproofai stops evaluating at the first deny, so the later policies would never see
 * that event and their tracked state would drift from the hook's. What still differs (see
 * docs/screens.md): another failproofai policy that denies first hides the event from fire's
 * (failproofai's order, not fire's); failproofai rewrites the message text the agent sees
 * (it formats deny/instruct messages itself); the decision kind does not change.
 *
 * Session state: one JSON file per session (the session id hashed, so no id — `..`, `/` —
 * can name a path outside the state folder) in `.fire-state/` next to the module (or
 * FIRE_FAILPROOFAI_STATE), read-modified-written under a lock (an exclusive lock folder,
 * stale after 10 s) so concurrent hook processes of one session lose no update.
 *
 * failproofai is not on the npm registry (checked with `npm view failproofai`: E404), so
 * the export is tested against a stand-in that implements the documented API.
 */

/** Compiled evaluator modules copied next to the export (all are free of packages). */
const RUNTIME_FILES = [
  "core/builtin.js",
  "core/ingest/shell.js",
  "core/model/exit-status.js",
  "core/policy/budget.js",
  "core/policy/compile.js",
  "core/policy/condition.js",
  "core/policy/evaluator.js",
  "core/policy/grammar.js",
  "core/policy/key.js",
  "core/policy/linear-engine.js",
  "core/policy/patterns.js",
  "core/policy/prefilter.js",
  "core/policy/regex-ast.js",
  "core/policy/regex.js",
  "core/policy/types.js",
  "core/policy/values.js",
  "runtime/map-event.js",
];

/** dist/ of this installation (from src/ under tests: the sibling dist/ built by tsc). */
export function distRoot(): string {
  const here = fileURLToPath(new URL("../../", import.meta.url));
  if (existsSync(join(here, "core/policy/evaluator.js"))) return here;
  return join(here, "..", "dist");
}

export interface FailproofaiExport {
  dir: string;
  module: string;
  sidecar: string;
  policies: string[];
}

export async function exportFailproofai(
  portfolioDir: string,
  outDir: string,
): Promise<FailproofaiExport> {
  const { manifest, policies } = loadFrozenPortfolio(portfolioDir);
  const base = `fire-${manifest.name}`;
  const dist = distRoot();
  for (const f of RUNTIME_FILES) {
    if (!existsSync(join(dist, f)))
      throw new Error(
        `${join(dist, f)}: fire's compiled evaluator is missing (run the build first)`,
      );
  }
  await mkdir(outDir, { recursive: true });
  // Atomic writes: a failproofai process may be loading a previous export from this folder.
  for (const f of RUNTIME_FILES) {
    const to = join(outDir, "fire-runtime", f);
    await mkdir(dirname(to), { recursive: true });
    await writeFileAtomic(to, await readFile(join(dist, f)));
  }
  await writeFileAtomic(join(outDir, "fire-runtime", "package.json"), '{ "type": "module" }\n');
  const sidecar = {
    kind: "fire-failproofai-sidecar",
    portfolio: manifest.name,
    manifestHash: manifest.manifestHash,
    // Each policy exactly as frozen (canonical JSON text) with its manifest SHA-256.
    // `linear`: the same candidate with its patterns in their linear form (regex.ts), so the
    // module compiles them without a regex parser; checked against `linearSha256`.
    policies: manifest.policies.map((p) => {
      const text = readFileSync(join(portfolioDir, p.file), "utf8");
      const linear = JSON.stringify(linearCandidate(JSON.parse(text)));
      return { key: policyKey(p), sha256: p.sha256, text, linear, linearSha256: sha256Hex(linear) };
    }),
  };
  const sidecarFile = join(outDir, `${base}.portfolio.json`);
  await writeFileAtomic(sidecarFile, `${JSON.stringify(sidecar, null, 2)}\n`);
  const moduleFile = join(outDir, `${base}.policies.mjs`);
  await writeFileAtomic(moduleFile, moduleText(base, manifest.name, manifest.manifestHash));
  return {
    dir: outDir,
    module: moduleFile,
    sidecar: sidecarFile,
    policies: policies.map((p) => p.key),
  };
}

function moduleText(base: string, name: string, hash: string): string {
  return `// Generated by \`fire export --portfolio ${name} --format failproofai\`. Do not edit: the
// policies are data in ${base}.portfolio.json (portfolio manifest ${hash}); re-export instead.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { allow, customPolicies, deny, instruct } from "failproofai";
import { compilePolicy } from "./fire-runtime/core/policy/compile.js";
import { initState, step } from "./fire-runtime/core/policy/evaluator.js";
import { toEvent } from "./fire-runtime/runtime/map-event.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const SIDECAR = JSON.parse(readFileSync(join(HERE, ${JSON.stringify(`${base}.portfolio.json`)}), "utf8"));
if (SIDECAR.manifestHash !== ${JSON.stringify(hash)}) {
  throw new Error("${base}: the sidecar does not belong to this module (re-export the portfolio)");
}
const STATE_DIR = process.env.FIRE_FAILPROOFAI_STATE || join(HERE, ".fire-state");
const EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];

/** One state file per session: the id is hashed, so no session id can leave STATE_DIR. */
function stateFile(session) {
  const id = createHash("sha256").update(String(session)).digest("hex").slice(0, 40);
  return join(STATE_DIR, id + ".json");
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/** Runs fn while holding the session's lock (an exclusive mkdir; stale after 10 s). */
function withLock(file, fn) {
  const lock = file + ".lock";
  mkdirSync(STATE_DIR, { recursive: true });
  for (let tries = 0; ; tries++) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10_000) rmSync(lock, { recursive: true, force: true });
      } catch {}
      if (tries > 2000) throw new Error("${base}: the session state stays locked: " + lock);
      Atomics.wait(SLEEP, 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function readState(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return initState();
  }
}

function writeState(file, state) {
  const tmp = file + "." + process.pid + ".tmp";
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}

const policies = SIDECAR.policies.map((frozen) => {
  const digest = createHash("sha256").update(frozen.text).digest("hex");
  if (digest !== frozen.sha256) {
    throw new Error("${base}: policy " + frozen.key + " does not match its frozen SHA-256");
  }
  const linear = createHash("sha256").update(frozen.linear).digest("hex");
  if (linear !== frozen.linearSha256) {
    throw new Error("${base}: policy " + frozen.key + " does not match its linear form's SHA-256");
  }
  return compilePolicy(JSON.parse(frozen.linear), undefined, { admitted: true });
});

customPolicies.add({
  name: "fire/" + SIDECAR.portfolio,
  description: "fire portfolio " + SIDECAR.portfolio + ": " + policies.map((p) => p.key).join(", "),
  match: { events: EVENTS },
  fn: async (ctx) => {
    const payload = ctx.payload || {};
    const input = {
      ...payload,
      hook_event_name: ctx.eventType || payload.hook_event_name,
      tool_name: ctx.toolName ?? payload.tool_name,
      tool_input: ctx.toolInput ?? payload.tool_input,
    };
    const ev = toEvent(input);
    if (!ev) return allow();
    const session = payload.session_id || (ctx.session && ctx.session.sessionId) || "default";
    const file = stateFile(session);
    const result = withLock(file, () => {
      const state = readState(file);
      const r = step(policies, state, { ...ev, index: state.step });
      writeState(file, r.state);
      return r;
    });
    if (result.verdict.action === "deny") return deny(result.verdict.message);
    if (result.verdict.action === "instruct") return instruct(result.verdict.message);
    return allow();
  },
});
`;
}
