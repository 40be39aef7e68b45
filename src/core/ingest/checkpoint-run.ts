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
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import { appendPrinted, streamJsonItems } from "./agent-printed.js";
import { type ClaudeSession, readClaudeSession } from "./claude.js";
import { EventLog } from "./events.js";
import { findFiles, isDir, isFile, peek, readSmall } from "./fs-util.js";
import { decideOutcome } from "./harbor-outcome.js";
import { ioReason, parseJsonLoaded, validate } from "./json-file.js";
import { filesStamp } from "./stamp.js";
import { attemptId, capString } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";
import { readVerifierTail } from "./verifier-tail.js";
import type { VerifierTest } from "./verifier-tests.js";

const Group = z.looseObject({
  passed: z.array(z.string()).nullish(),
  failed: z.array(z.string()).nullish(),
  skipped: z.array(z.string()).nullish(),
});

const Evaluation = z.looseObject({
  problem_name: z.string().nullish(),
  checkpoint_name: z.string().nullish(),
  tests: z.record(z.string(), Group),
  infrastructure_failure: z.boolean().nullish(),
  pytest_exit_code: z.number().nullish(),
});

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

/** pytest-json-report: each test's node id, outcome and the failure's text. */
const PytestJsonReport = z.looseObject({
  tests: z.array(
    z.looseObject({
      nodeid: z.string(),
      outcome: z.string().nullish(),
      lineno: z.number().nullish(),
      call: z.looseObject({ longrepr: z.unknown().optional() }).nullish(),
      setup: z.looseObject({ longrepr: z.unknown().optional() }).nullish(),
    }),
  ),
});

const EVALUATION_HEAD = /^\{[\s\S]*"checkpoint_name"\s*:[\s\S]*"tests"\s*:/;
/** Printed logs above this size are not read (they would not fit the trace caps anyway). */
const MAX_LOG = 64 << 20;
/** A failure's text kept per test. */
const MESSAGE_CAP = 2_000;

/** Whether a folder is such a checkpoint: an `evaluation.json` of checkpoint tests and the agent's printed log. */
export function isCheckpointRun(dir: string): boolean {
  const evaluation = join(dir, "evaluation.json");
  if (!isFile(evaluation) || !isFile(join(dir, "agent", "stdout.jsonl"))) return false;
  return EVALUATION_HEAD.test(peek(evaluation, 16384).trimStart());
}

function readJson<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): { ok: true; value: z.infer<S> } | { ok: false; error: InputError } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, error: new InputError(file, undefined, ioReason(err)) };
  }
  const parsed = parseJsonLoaded(file, text);
  if (!parsed.ok) return parsed;
  return validate(file, parsed.value, schema, what);
}

/** The failure text pytest-json-report keeps for each test, by the test's own name. */
function failureTexts(file: string): Map<string, { text: string; line?: number }> {
  const out = new Map<string, { text: string; line?: number }>();
  if (!isFile(file)) return out;
  const r = readJson(file, PytestJsonReport, "a pytest-json-report (tests with nodeid, outcome)");
  if (!r.ok) return out;
  for (const t of r.value.tests) {
    const repr = t.call?.longrepr ?? t.setup?.longrepr;
    if (typeof repr !== "string" || repr === "") continue;
    const name = t.nodeid.split("::").at(-1) ?? t.nodeid;
    out.set(name, {
      text: capString(repr, MESSAGE_CAP),
      ...(t.lineno ? { line: t.lineno + 1 } : {}),
    });
  }
  return out;
}

/**
 * The graded tests, group by group: `<Group>: <test>`; the earlier checkpoints' tests (the
 * Regression group) must keep passing, the others are this checkpoint's targets.
 */
function gradedTests(
  evaluation: z.infer<typeof Evaluation>,
  reportFile: string,
  before: ReadonlySet<string> | undefined,
): VerifierTest[] {
  const texts = failureTexts(reportFile);
  const out: VerifierTest[] = [];
  for (const [key, g] of Object.entries(evaluation.tests)) {
    const group = key.split("-").at(-1) ?? key;
    const earlier = /^regression$/i.test(group);
    // an earlier checkpoint's test is a regression test only where it passed after the
    // previous checkpoint: one that failed then is a failure this run inherited
    const roleOf = (name: string): VerifierTest["role"] =>
      !earlier ? "target" : before?.has(name) ? "regression" : undefined;
    const add = (names: readonly string[] | null | undefined, status: VerifierTest["status"]) => {
      for (const name of names ?? []) {
        const t = status === "failed" ? texts.get(name) : undefined;
        const role = roleOf(name);
        out.push({
          name: `${group}: ${name}`,
          status,
          ...(role ? { role } : {}),
          ...(t ? { message: t.text, file: reportFile } : {}),
        });
      }
    };
    add(g.failed, "failed");
    add(g.passed, "passed");
    add(g.skipped, "skipped");
  }
  return out;
}

/** The evaluation of the checkpoint before this one (`checkpoint_<N-1>` beside it), if any. */
function previousEvaluation(dir: string): string | undefined {
  const m = /^(.*?)(\d+)$/.exec(basename(dir));
  const n = m ? Number(m[2]) : Number.NaN;
  if (!m || !(n > 1)) return undefined;
  const file = join(dirname(dir), `${m[1]}${n - 1}`, "evaluation.json");
  return isFile(file) ? file : undefined;
}

/** The tests every group of the previous checkpoint passed (undefined: no previous checkpoint). */
function passedBefore(dir: string): Set<string> | undefined {
  const file = previousEvaluation(dir);
  if (!file) return undefined;
  const r = readJson(file, Evaluation, "a checkpoint's evaluation.json");
  if (!r.ok) return undefined;
  return new Set(Object.values(r.value.tests).flatMap((g) => g.passed ?? []));
}

/** The CLI's opening `init` record: its model and version. */
const InitRecord = z.looseObject({
  type: z.literal("system"),
  model: z.string().nullish(),
  claude_code_version: z.string().nullish(),
});

function openingRecord(text: string): z.infer<typeof InitRecord> | undefined {
  const first = text.slice(0, text.indexOf("\n") >>> 0).trim();
  if (!first.startsWith('{"type":"system"')) return undefined;
  try {
    const r = InitRecord.safeParse(JSON.parse(first));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The CLI's closing `result` record: how it ended, and what the run cost. */
const ResultRecord = z.looseObject({
  type: z.literal("result"),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  num_turns: z.number().nullish(),
});

function closingRecord(text: string): z.infer<typeof ResultRecord> | undefined {
  const last = text.trimEnd().split("\n").at(-1)?.trim() ?? "";
  if (!last.startsWith('{"type":"result"')) return undefined;
  try {
    const r = ResultRecord.safeParse(JSON.parse(last));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

async function* readCheckpointRun(dir: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const evaluationFile = join(dir, "evaluation.json");
  const evaluation = readJson(
    evaluationFile,
    Evaluation,
    "a checkpoint's evaluation.json (tests per group with passed / failed names)",
  );
  if (!evaluation.ok) return yield { type: "error", error: evaluation.error };
  const ev = evaluation.value;
  const inferenceFile = join(dir, "inference_result.json");
  const inference = isFile(inferenceFile)
    ? readJson(inferenceFile, Inference, "a checkpoint's inference_result.json (timing, had_error)")
    : undefined;
  if (inference && !inference.ok) yield { type: "error", error: inference.error };
  const inf = inference?.ok ? inference.value : {};
  let log = new EventLog(options.outputCap);
  const printedFile = join(dir, "agent", "stdout.jsonl");
  const printed = readSmall(printedFile, MAX_LOG) ?? "";
  appendPrinted(log, streamJsonItems(printed));
  const closing = closingRecord(printed);
  const opening = openingRecord(printed);
  // the CLI answered and closed its run: the run ends with its stop
  if (closing) log.stop();
  // A run the harness resumed (`--continue` after an API error) printed only its last part; the
  // CLI's own session transcript holds the whole conversation: read when it knows more calls.
  const session = await mainSession(dir, options);
  if (session.errors.length > 0) for (const error of session.errors) yield error;
  const s = session.session;
  const calls = (l: EventLog) => l.events.filter((e) => e.kind === "tool_call").length;
  // the transcript also keeps each turn's usage and stop reason: read whenever it has the run
  const fromSession = s !== undefined && session.file !== undefined && calls(s.log) >= calls(log);
  if (fromSession) log = s.log;
  const finalTurn = fromSession ? s.finalTurn() : undefined;
  const tests = gradedTests(ev, join(dir, "evaluation", "report.json"), passedBefore(dir));
  const total = tests.filter((t) => t.status !== "skipped").length;
  const passed = tests.filter((t) => t.status === "passed").length;
  const reward = total > 0 ? passed / total : undefined;
  const exception = ev.infrastructure_failure
    ? {
        type: "VerifierInfrastructureFailure",
        message: "the grader reported an infrastructure failure",
      }
    : inf.had_error
      ? {
          type: "AgentError",
          message: inf.error_message || "the harness reported an error in the agent's run",
        }
      : closing?.subtype === "error_max_turns"
        ? {
            type: "MaxTurnsReached",
            message: `the agent CLI reached its max turns limit (${closing.num_turns ?? "?"} turns)`,
          }
        : closing?.is_error
          ? {
              type: "AgentError",
              message: `the agent CLI ended with an error (${closing.subtype ?? "error"})`,
            }
          : undefined;
  const outcome = ev.infrastructure_failure
    ? ("error" as const)
    : decideOutcome(reward, exception, options.passThreshold);
  const verifier = readVerifierTail(join(dir, "evaluation", "stdout.txt"), options.outputCap);
  const taskText = readSmall(join(dir, "prompt.txt"), 1 << 20)?.trim() ?? "";
  const problem = ev.problem_name ?? basename(dirname(dir));
  const checkpoint = ev.checkpoint_name ?? basename(dir);
  const usage = inf.usage;
  const attempt: AttemptInput = {
    id: attemptId("checkpoint-run", dir, `${problem}-${checkpoint}`),
    source: { format: "checkpoint-run", path: dir },
    taskId: `${problem}/${checkpoint}`,
    taskText,
    agent: opening ? "claude-code" : undefined,
    model: opening?.model ?? undefined,
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
 * The CLI's main session transcript under `agent/workspace/projects/<slug>/<session>.jsonl` (the
 * largest one that is no sub-agent's `agent-*.jsonl`), read as a Claude Code transcript.
 */
async function mainSession(
  dir: string,
  options: IngestOptions,
): Promise<{ session?: ClaudeSession; file?: string; errors: IngestItem[] }> {
  const root = join(dir, "agent", "workspace", "projects");
  if (!isDir(root)) return { errors: [] };
  const files = findFiles(root, (r) => /^[^/]+\/(?!agent-)[^/]+\.jsonl$/.test(r));
  const main = files.sort((a, b) => sizeOf(b) - sizeOf(a))[0];
  if (!main) return { errors: [] };
  const holder: { session?: ClaudeSession } = {};
  const errors: IngestItem[] = [];
  for await (const item of readClaudeSession(main, options, holder)) errors.push(item);
  return { session: holder.session, file: main, errors };
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export const checkpointRunImporter: Importer = {
  format: "checkpoint-run",
  detect: (path, _head, isDirectory) => isDirectory && isCheckpointRun(path),
  read: (path, options) => readCheckpointRun(path, options),
  // the previous checkpoint's verdict says which earlier tests passed before this run
  outsideStamp: (path) => {
    const before = previousEvaluation(path);
    return filesStamp(before ? [before] : []);
  },
};
