/**
 * A checkpoint folder of a multi-stage benchmark harness (SlopCodeBench's layout): each problem
 * is a chain of checkpoints, each checkpoint one run of an agent CLI on `prompt.txt` in the
 * workspace the previous checkpoint left. Per folder:
 * - `agent/stdout.jsonl`: what the CLI printed (Claude Code `--output-format stream-json`, its
 *   last line the `result` record); the CLI's own session files under `agent/workspace/` are the
 *   same run and are not read apart;
 * - `inference_result.json`: timing, `had_error` / `error_message`, usage;
 * - `evaluation.json`: the hidden tests' results per group (`tests.<checkpoint>-<Group>` with
 *   `passed` / `failed` / `skipped` names; Core, Functionality, Error, and Regression: the
 *   earlier checkpoints' tests), `infrastructure_failure`;
 * - `evaluation/report.json`: a pytest-json-report (each test's outcome and failure text),
 *   `evaluation/stdout.txt`: pytest's own output.
 *
 * The run passes when every graded test passed (reward = the share passed, held to the pass
 * threshold as any reward); a grader that failed itself leaves an `error` outcome.
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import { appendPrinted, streamJsonItems } from "./agent-printed.js";
import { checkpointOutsideStamp } from "./checkpoint-paths.js";
import {
  Evaluation,
  failureTexts,
  gradedTests,
  groupsOf,
  passedBefore,
} from "./checkpoint-verdict.js";
import { type ClaudeSession, readClaudeSession } from "./claude.js";
import { EventLog } from "./events.js";
import { findFiles, isDir, isFile, peek, readSmall, subdirs } from "./fs-util.js";
import { decideOutcome } from "./harbor-outcome.js";
import { readJsonAsSync } from "./json-file.js";
import { attemptId, capString } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";
import { readVerifierTail } from "./verifier-tail.js";

const Inference = z.looseObject({
  started: z.string().nullish(),
  elapsed: z.number().nullish(),
  had_error: z.boolean().nullish(),
  error_message: z.string().nullish(),
  usage: z
    .looseObject({
      cost: z.number().nullish(),
      net_tokens: z
        .looseObject({ input: z.number().nullish(), output: z.number().nullish() })
        .nullish(),
    })
    .nullish(),
});

const EVALUATION_HEAD = /^\{[\s\S]*"checkpoint_name"\s*:[\s\S]*"tests"\s*:/;
/** Printed logs above this size are not read (they would not fit the trace caps anyway). */
const MAX_LOG = 64 << 20;
/**
 * Whether a folder is such a checkpoint: the agent's folder and the harness's own record of the
 * run (`checkpoint.yaml` or `inference_result.json`), or an `evaluation.json` of checkpoint tests
 * beside the agent's printed log (a run the grader skipped has no evaluation).
 */
export function isCheckpointRun(dir: string): boolean {
  if (!isDir(join(dir, "agent"))) return false;
  if (isFile(join(dir, "checkpoint.yaml")) || isFile(join(dir, "inference_result.json")))
    return true;
  const evaluation = join(dir, "evaluation.json");
  return isFile(evaluation) && EVALUATION_HEAD.test(peek(evaluation, 16384).trimStart());
}

/** The files a checkpoint harness writes for a whole run, beside its problem folders. */
const RUN_FILES = /^(?:checkpoint_results\.jsonl|problem_catalog\.json|result\.json)$/;

/**
 * Whether a file is such a run's own summary (checkpoint results, the problem catalogue, the
 * run's totals): one of those names, in a folder whose problem folders hold checkpoint folders.
 */
export function isRunSummary(path: string): boolean {
  if (!RUN_FILES.test(basename(path))) return false;
  const run = dirname(path);
  for (const problem of subdirs(run))
    for (const checkpoint of subdirs(join(run, problem)))
      if (isCheckpointRun(join(run, problem, checkpoint))) return true;
  return false;
}

/** The CLI's opening `init` record: its model and version. */
const InitRecord = z.looseObject({
  type: z.literal("system"),
  model: z.string().nullish(),
  claude_code_version: z.string().nullish(),
});

/** A JSON line of the printed log, parsed (undefined: not a JSON object). */
function jsonLine(line: string | undefined): unknown {
  const l = line?.trim() ?? "";
  if (!l.startsWith("{")) return undefined;
  try {
    return JSON.parse(l);
  } catch {
    return undefined;
  }
}

function openingRecord(text: string): z.infer<typeof InitRecord> | undefined {
  const r = InitRecord.safeParse(jsonLine(text.slice(0, text.indexOf("\n") >>> 0)));
  return r.success ? r.data : undefined;
}

/** The sessions the printed log names (its init and result records carry `session_id`). */
function sessionIds(text: string): Set<string> {
  return new Set([...text.matchAll(/"session_id"\s*:\s*"([\w-]{1,80})"/g)].map((m) => m[1] ?? ""));
}

/** The CLI's closing `result` record: how it ended, and what the run cost. */
const ResultRecord = z.looseObject({
  type: z.literal("result"),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  num_turns: z.number().nullish(),
  result: z.string().nullish(),
});

function closingRecord(text: string): z.infer<typeof ResultRecord> | undefined {
  const r = ResultRecord.safeParse(jsonLine(text.trimEnd().split("\n").at(-1)));
  return r.success ? r.data : undefined;
}

/**
 * How the CLI said its run ended, when not by the agent's own stop: its turn limit (a step
 * limit), or an error (`error_during_execution`, `is_error`), with what it printed.
 */
function cliEnd(closing: z.infer<typeof ResultRecord> | undefined): AttemptInput["exception"] {
  if (!closing) return undefined;
  const said = closing.result ? `: ${capString(closing.result, 300)}` : "";
  if (closing.subtype === "error_max_turns")
    return {
      type: "MaxTurnsReached",
      message: `the agent CLI reached its max turns limit (${closing.num_turns ?? "?"} turns)`,
    };
  if (closing.subtype?.startsWith("error") || closing.is_error)
    return {
      type: "AgentError",
      message: `the agent CLI ended with an error (${closing.subtype ?? "is_error"})${said}`,
    };
  return undefined;
}

/** A JSON file of the checkpoint, when it is there and valid (a bad one is added to `errors`). */
function readIfThere<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
  errors: InputError[],
): z.infer<S> | undefined {
  if (!isFile(file)) return undefined;
  const r = readJsonAsSync(file, schema, what);
  if (r.ok) return r.value;
  errors.push(r.error);
  return undefined;
}

async function* readCheckpointRun(dir: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const errors: InputError[] = [];
  const evaluationFile = join(dir, "evaluation.json");
  // a checkpoint the grader skipped, or whose verdict is unreadable, still loads (no outcome)
  const ev = readIfThere(
    evaluationFile,
    Evaluation,
    "a checkpoint's evaluation.json (tests per group with passed / failed names)",
    errors,
  );
  const inf =
    readIfThere(
      join(dir, "inference_result.json"),
      Inference,
      "a checkpoint's inference_result.json (timing, had_error)",
      errors,
    ) ?? {};
  let log = new EventLog(options.outputCap);
  const printedFile = join(dir, "agent", "stdout.jsonl");
  const printed = readSmall(printedFile, MAX_LOG);
  if (printed === undefined && isFile(printedFile))
    errors.push(
      new InputError(printedFile, undefined, `larger than ${MAX_LOG >> 20} MiB: not read`),
    );
  const text = printed ?? "";
  const items = streamJsonItems(text);
  appendPrinted(log, items);
  const closing = closingRecord(text);
  const opening = openingRecord(text);
  const ended = cliEnd(closing);
  // the CLI answered and closed its run on its own: the run ends with its stop
  if (closing && !ended) log.stop();
  // A run the harness resumed (`--continue` after an API error) printed only its last part; the
  // CLI's own transcript of the session the log names holds the whole conversation, and each
  // turn's usage and stop reason: read when it has at least the printed calls.
  const session = await namedSession(dir, sessionIds(text), options);
  for (const item of session.errors) yield item;
  const s = session.session;
  const calls = (l: EventLog) => l.events.filter((e) => e.kind === "tool_call").length;
  const fromSession = s !== undefined && session.file !== undefined && calls(s.log) >= calls(log);
  if (fromSession) {
    log = s.log;
    // the transcript records no end of the run: the printed log's closing record says it
    if (closing && !ended && log.events.at(-1)?.kind !== "stop") log.stop();
  }
  if (text.trim() !== "" && items.length === 0 && !opening && !fromSession)
    errors.push(
      new InputError(
        printedFile,
        undefined,
        "no Claude Code stream-json lines (another agent's log?): the checkpoint loads with no actions",
      ),
    );
  const finalTurn = fromSession ? s.finalTurn() : undefined;
  const texts = failureTexts(join(dir, "evaluation", "report.json"), errors);
  const groups = ev ? groupsOf(ev.tests, evaluationFile, errors) : [];
  const tests = gradedTests(
    groups,
    ev?.checkpoint_name ?? undefined,
    texts,
    join(dir, "evaluation", "report.json"),
    passedBefore(dir),
  );
  for (const error of errors) yield { type: "error", error };
  // the harness counts a skipped test among the total: it did not pass
  const passed = tests.filter((t) => t.status === "passed").length;
  const reward =
    ev?.infrastructure_failure || tests.length === 0 ? undefined : passed / tests.length;
  const exception = ev?.infrastructure_failure
    ? {
        type: "VerifierInfrastructureFailure",
        message: "the grader reported an infrastructure failure",
      }
    : inf.had_error
      ? {
          type: "AgentError",
          message: inf.error_message || "the harness reported an error in the agent's run",
        }
      : ended;
  const outcome = ev?.infrastructure_failure
    ? ("error" as const)
    : decideOutcome(reward, exception, options.passThreshold);
  const verifier = readVerifierTail(join(dir, "evaluation", "stdout.txt"), options.outputCap);
  const taskText = readSmall(join(dir, "prompt.txt"), 1 << 20)?.trim() ?? "";
  const problem = ev?.problem_name ?? basename(dirname(dir));
  const checkpoint = ev?.checkpoint_name ?? basename(dir);
  const usage = inf.usage;
  const attempt: AttemptInput = {
    id: attemptId("checkpoint-run", dir, `${problem}-${checkpoint}`),
    source: { format: "checkpoint-run", path: dir },
    taskId: `${problem}/${checkpoint}`,
    taskText,
    agent: opening || fromSession ? "claude-code" : undefined,
    model: opening?.model ?? s?.model ?? undefined,
    outcome,
    reward: reward ?? null,
    exception,
    costUsd: usage?.cost ?? undefined,
    tokens: usage?.net_tokens
      ? normTokens({ input: usage.net_tokens.input, output: usage.net_tokens.output })
      : undefined,
    startedAt: inf.started ?? undefined,
    durationS: inf.elapsed ?? undefined,
    verifierOutput: verifier?.text,
    verifierSource: verifier
      ? { file: verifier.file, firstLine: verifier.firstLine, head: verifier.head }
      : undefined,
    verifierTests: tests.length > 0 ? tests : undefined,
    ...(finalTurn && session.file ? { agentEnd: { ...finalTurn, file: session.file } } : {}),
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

/**
 * The CLI's own transcript of the session its printed log names,
 * `agent/workspace/projects/<slug>/<session_id>.jsonl` (the last one named, when the harness
 * resumed it under a new id), read as a Claude Code transcript; none when no file matches.
 */
async function namedSession(
  dir: string,
  ids: ReadonlySet<string>,
  options: IngestOptions,
): Promise<{ session?: ClaudeSession; file?: string; errors: IngestItem[] }> {
  const root = join(dir, "agent", "workspace", "projects");
  if (ids.size === 0 || !isDir(root)) return { errors: [] };
  const files = findFiles(root, (r) => /^[^/]+\/[^/]+\.jsonl$/.test(r));
  const named = [...ids]
    .reverse()
    .map((id) => files.find((f) => basename(f) === `${id}.jsonl`))
    .find((f) => f !== undefined);
  if (!named) return { errors: [] };
  const holder: { session?: ClaudeSession } = {};
  const errors: IngestItem[] = [];
  for await (const item of readClaudeSession(named, options, holder)) errors.push(item);
  return { session: holder.session, file: named, errors };
}

export const checkpointRunImporter: Importer = {
  format: "checkpoint-run",
  detect: (path, _head, isDirectory) => isDirectory && isCheckpointRun(path),
  read: (path, options) => readCheckpointRun(path, options),
  // the previous checkpoint's verdict says which earlier tests passed before this run
  outsideStamp: checkpointOutsideStamp,
  sideFile: (path) => isRunSummary(path),
};
