import { join } from "node:path";
import { z } from "zod";
import { describeZodIssues, InputError } from "../errors.js";
import type { AttemptInput, Outcome } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { isFile, peek, readSmall, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { castText, sessionCommands } from "./tb1-session.js";
import { attemptId, secondsBetween } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";
import { readVerifierTail } from "./verifier-tail.js";

/** Terminal-Bench 1 `TrialResults` (per-trial `results.json`, also inlined in the run's). */
export const Tb1Trial = z.looseObject({
  id: z.string().nullish(),
  trial_name: z.string(),
  task_id: z.string(),
  instruction: z.string().nullish(),
  is_resolved: z.boolean().nullish(),
  failure_mode: z.string().nullish(),
  parser_results: z.record(z.string(), z.string()).nullish(),
  total_input_tokens: z.number().nullish(),
  total_output_tokens: z.number().nullish(),
  trial_started_at: z.string().nullish(),
  trial_ended_at: z.string().nullish(),
});
type Tb1Trial = z.infer<typeof Tb1Trial>;

const Tb1Run = z.looseObject({ id: z.string().nullish(), results: z.array(z.unknown()).nullish() });
const Tb1Meta = z.looseObject({
  run_id: z.string().nullish(),
  agent_name: z.string().nullish(),
  model_name: z.string().nullish(),
});

const RUN_HEAD = /"(?:n_resolved|resolved_ids|accuracy|is_resolved)"\s*:/;
const TIMEOUTS = new Set(["agent_timeout", "test_timeout"]);
const OK_MODES = new Set(["none", "unset", ""]);

/** Terminus episode responses carry `commands[].keystrokes`. */
const Episode = z.looseObject({
  commands: z.array(z.looseObject({ keystrokes: z.string() })).nullish(),
  is_task_complete: z.boolean().nullish(),
});

function outcomeOf(t: Tb1Trial): { outcome: Outcome; exception?: AttemptInput["exception"] } {
  const mode = t.failure_mode ?? "unset";
  if (t.is_resolved === true) return { outcome: "pass" };
  if (TIMEOUTS.has(mode)) return { outcome: "timeout", exception: { type: mode } };
  if (!OK_MODES.has(mode)) return { outcome: "error", exception: { type: mode } };
  return { outcome: t.is_resolved === false ? "fail" : "unknown" };
}

async function episodeEvents(trialDir: string, log: EventLog): Promise<IngestItem[]> {
  const errors: IngestItem[] = [];
  const logs = join(trialDir, "agent-logs");
  const eps = subdirs(logs).filter((n) => /^episode-\d+$/.test(n));
  eps.sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const ep of eps) {
    const f = join(logs, ep, "response.json");
    if (!isFile(f)) continue;
    const r = await readJsonAs(f, Episode, "a Terminus episode response");
    if (!r.ok) {
      errors.push({ type: "error", error: r.error });
      continue;
    }
    for (const c of r.value.commands ?? []) log.call({ tool: "keystrokes", args: c });
    if (r.value.is_task_complete) log.stop();
  }
  return errors;
}

/** Largest session log read for commands (a longer one is read from its end). */
const SESSION_CAP = 32 << 20;

/**
 * Commands from the pane recording (`sessions/agent.cast`, else `sessions/agent.log`):
 * typed at the prompt, or printed by the agent in its own output. Returns how many.
 */
function sessionEvents(trialDir: string, log: EventLog, errors: IngestItem[]): number {
  const cast = join(trialDir, "sessions", "agent.cast");
  const plain = join(trialDir, "sessions", "agent.log");
  let text: string | undefined;
  const castRaw = readSmall(cast, SESSION_CAP);
  if (castRaw !== undefined) {
    const c = castText(castRaw);
    text = c.text;
    if (c.badLines.length > 0)
      errors.push({
        type: "error",
        error: new InputError(
          cast,
          c.badLines[0],
          `expected an asciinema row [time, "o"|"i", text]; ${c.badLines.length} bad row(s) skipped, the rest read`,
        ),
      });
  } else text = readSmall(plain, SESSION_CAP);
  if (!text) return 0;
  const cmds = sessionCommands(text);
  for (const c of cmds) {
    log.call({ tool: "terminal", args: { command: c.command }, command: c.command });
    log.result({
      output: c.output,
      tool: "terminal",
      ...(c.exitCode !== undefined ? { exitCode: c.exitCode } : {}),
    });
  }
  return cmds.length;
}

/** The tests' output (`sessions/tests.log`, else the post-test pane), as the verifier output. */
function testsOutput(trialDir: string, cap: number) {
  for (const f of [
    join(trialDir, "sessions", "tests.log"),
    join(trialDir, "panes", "post-test.txt"),
  ]) {
    const t = readVerifierTail(f, cap);
    if (t) return t;
  }
  return undefined;
}

async function* trialAttempt(
  t: Tb1Trial,
  dir: string | undefined,
  runPath: string,
  meta: z.infer<typeof Tb1Meta> | undefined,
  options: IngestOptions,
): AsyncGenerator<IngestItem> {
  const log = new EventLog(options.outputCap);
  log.text("prompt", "user", t.instruction ?? "");
  const errors: IngestItem[] = [];
  // The pane recording has the commands with their output; Terminus episodes are the fallback.
  const fromSession = dir ? sessionEvents(dir, log, errors) : 0;
  if (dir && fromSession === 0) errors.push(...(await episodeEvents(dir, log)));
  else if (fromSession > 0 && t.failure_mode !== "agent_timeout") log.stop();
  yield* errors;
  const tests = dir ? testsOutput(dir, options.outputCap) : undefined;
  const { outcome, exception } = outcomeOf(t);
  const k = /\.(\d+)-of-(\d+)\./.exec(t.trial_name);
  const attempt: AttemptInput = {
    id: attemptId("tb1", `${meta?.run_id ?? ""}/${t.trial_name}`, t.trial_name),
    source: { format: "tb1-run", path: dir ?? runPath },
    taskId: t.task_id,
    taskText: (t.instruction ?? "").trim(),
    agent: meta?.agent_name ?? undefined,
    model: meta?.model_name ?? undefined,
    attemptNo: k ? Number(k[1]) : undefined,
    outcome,
    reward: typeof t.is_resolved === "boolean" ? (t.is_resolved ? 1 : 0) : null,
    exception,
    tokens:
      t.total_input_tokens != null || t.total_output_tokens != null
        ? { input: t.total_input_tokens ?? undefined, output: t.total_output_tokens ?? undefined }
        : undefined,
    startedAt: t.trial_started_at ?? undefined,
    durationS: secondsBetween(t.trial_started_at, t.trial_ended_at),
    verifierOutput: tests?.text,
    verifierSource: tests ? { file: tests.file, firstLine: tests.firstLine } : undefined,
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

/** Read a TB1 run folder (or a single TB1 trial folder). */
export async function* readTb1(dir: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const metaFile = join(dir, "run_metadata.json");
  let meta: z.infer<typeof Tb1Meta> | undefined;
  if (isFile(metaFile)) {
    const m = await readJsonAs(metaFile, Tb1Meta, "a Terminal-Bench run_metadata.json");
    if (m.ok) meta = m.value;
    else yield { type: "error", error: m.error };
  }
  const head = peek(join(dir, "results.json"));
  if (/"is_resolved"\s*:/.test(head) && !/"results"\s*:/.test(head)) {
    const t = await readJsonAs(
      join(dir, "results.json"),
      Tb1Trial,
      "a Terminal-Bench trial result",
    );
    if (t.ok) yield* trialAttempt(t.value, dir, dir, meta, options);
    else yield { type: "error", error: t.error };
    return;
  }
  const seen = new Set<string>();
  for (const task of subdirs(dir)) {
    for (const trial of subdirs(join(dir, task))) {
      const f = join(dir, task, trial, "results.json");
      if (!isFile(f)) continue;
      const t = await readJsonAs(
        f,
        Tb1Trial,
        "a Terminal-Bench trial result (trial_name, task_id, is_resolved)",
      );
      if (!t.ok) {
        yield { type: "error", error: t.error };
        seen.add(trial);
        continue;
      }
      seen.add(t.value.trial_name);
      yield* trialAttempt(t.value, join(dir, task, trial), dir, meta, options);
    }
  }
  const run = await readJsonAs(
    join(dir, "results.json"),
    Tb1Run,
    "a Terminal-Bench run results.json",
  );
  if (!run.ok) {
    if (isFile(join(dir, "results.json"))) yield { type: "error", error: run.error };
    return;
  }
  for (const [i, raw] of (run.value.results ?? []).entries()) {
    const t = Tb1Trial.safeParse(raw);
    if (!t.success) {
      const why = describeZodIssues(t.error.issues);
      yield {
        type: "error",
        error: new InputError(
          join(dir, "results.json"),
          undefined,
          `results.${i}: expected a Terminal-Bench trial result: ${why}`,
        ),
      };
    } else if (!seen.has(t.data.trial_name))
      yield* trialAttempt(t.data, undefined, dir, meta, options);
  }
}

export async function looksLikeTb1(dir: string): Promise<boolean> {
  return RUN_HEAD.test(peek(join(dir, "results.json")));
}

export const tb1Importer: Importer = {
  format: "tb1-run",
  detect: (path, _head, isDirectory) => isDirectory && looksLikeTb1(path),
  read: (path, options) => readTb1(path, options),
};
