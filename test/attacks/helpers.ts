import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { manifestHashOf } from "../../src/core/freeze/verify.js";
import { hookForm } from "../../src/core/policy/hook-form.js";
import { Candidate } from "../../src/core/policy/schema.js";
import { canonicalJson, sha256Hex } from "../../src/core/screening/canonical.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { residentSettled } from "../helpers/resident.js";

export const CLI = resolve(REPO_ROOT, "dist/cli/fire.cjs"); // the bin the hook is installed as

/** A candidate in the policy language (JSON), with a deny rule on `command`. */
export function denyCandidate(id: string, command: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    version: 1,
    family: "deployment-preservation",
    title: `attack fixture ${id}`,
    chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
    status: "frozen",
    eligibility: { anyOf: ["."] },
    track: [{ id: "count", at: "tool", increment: "calls" }],
    rules: [
      { id: "deny", at: "tool", when: { command }, action: "deny", message: `denied by ${id}` },
    ],
    behavior: {},
    ...extra,
  };
}

/** A frozen portfolio written by hand the way `fire freeze` writes one (canonical JSON + hashes). */
export function writeFrozen(
  dir: string,
  candidates: ReturnType<typeof denyCandidate>[],
  opts: { hookForm?: boolean } = {},
): string {
  mkdirSync(join(dir, "policies"), { recursive: true });
  const policies = candidates.map((c) => {
    const file = `policies/${c.id}@${c.version}.json`;
    const text = `${canonicalJson(Candidate.parse(c))}\n`; // as freeze writes it: validated
    writeFileSync(join(dir, file), text);
    return {
      id: c.id,
      version: c.version,
      family: c.family,
      file,
      sha256: sha256Hex(text),
      source: "x",
    };
  });
  // as this fire freezes: the hook form beside the policies, hashed by the manifest
  let hook: { file: string; sha256: string } | undefined;
  if (opts.hookForm) {
    const form = hookForm(
      candidates.map((c, i) => ({ file: policies[i]?.file, candidate: Candidate.parse(c) })),
    );
    const text = `${JSON.stringify(form)}\n`;
    writeFileSync(join(dir, "hook.json"), text);
    hook = { file: "hook.json", sha256: sha256Hex(text) };
  }
  const body = {
    kind: "fire-portfolio" as const,
    version: 1 as const,
    name: "attack",
    frozenAt: "2026-12-01T00:00:00.000Z",
    policies,
    ...(hook ? { hook } : {}),
    routing: {},
    screens: [],
    forced: [],
    analysis: {},
  };
  const manifest = { ...body, manifestHash: manifestHashOf(body as never) };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

export function preToolUse(session: string, command: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: session,
    transcript_path: null,
    cwd: "/tmp",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "toolu_attack",
    ...extra,
  };
}

export function promptEvent(session: string, prompt = "keep the build directory") {
  return {
    session_id: session,
    transcript_path: null,
    cwd: "/tmp",
    hook_event_name: "UserPromptSubmit",
    prompt,
  };
}

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The built hook as a child process with a CEILING: a run that has not ended after
 * `ceilingMs` is killed and reported (a hang fails the test instead of stalling the suite).
 * `keepStdinOpen`: the input is written but stdin is never closed.
 */
export function startHook(
  args: string[],
  input: string | Buffer | undefined,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; ceilingMs?: number; keepStdinOpen?: boolean },
): { child: ReturnType<typeof spawn>; done: Promise<HookRun> } {
  const t0 = Date.now();
  const child = spawn(process.execPath, [CLI, "hook", ...args], {
    cwd: opts.cwd,
    env: { ...process.env, FIRE_STATE_DIR: "", ...opts.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  child.stdin?.on("error", () => {}); // the hook may stop reading an oversized stdin early
  if (input !== undefined && !opts.keepStdinOpen) child.stdin?.end(input);
  else if (input !== undefined) child.stdin?.write(input);
  const ceiling = setTimeout(() => child.kill("SIGKILL"), opts.ceilingMs ?? 60_000);
  const done = new Promise<HookRun>((resolveRun, fail) => {
    child.on("error", fail);
    child.on("close", (code, signal) => {
      clearTimeout(ceiling);
      const ms = Date.now() - t0;
      residentSettled({ ...process.env, ...opts.env });
      resolveRun({ code, signal, stdout, stderr, ms });
    });
  });
  return { child, done };
}

export function runHookChild(
  args: string[],
  input: string | Buffer | undefined,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; ceilingMs?: number; keepStdinOpen?: boolean },
): Promise<HookRun> {
  return startHook(args, input, opts).done;
}

/** A temp workspace with one candidate folder holding an `rm -rf` deny rule; the hook's args. */
export function rmWorkspace(prefix: string): { ws: string; dir: string; args: string[] } {
  const ws = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(ws, "cands");
  mkdirSync(dir);
  writeFileSync(join(dir, "rm.json"), JSON.stringify(denyCandidate("rm", "\\brm\\s+-rf\\b")));
  return { ws, dir, args: ["--portfolio", dir, "--workspace", ws] };
}
