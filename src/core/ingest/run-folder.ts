/**
 * A trial folder a small bench harness writes around an agent CLI: `meta.json` (the task it ran
 * as `eval`/`task`, the `agent` or `harness`, the `model`, the CLI's `exit_code`, `wall_seconds`,
 * token counts, `score_pct`), `score.json` (the grader's weighted `checks`, each
 * `{name, pass, note}`, and `score_pct`), the agent's own transcript and the graded workspace.
 * The transcript is aider's chat history (the harness's copy `aider.chat.history.md`, aider's
 * default `.aider.chat.history.md`, or that file in `workspace/` where a killed run left it); a
 * folder whose run left none still loads with its verdict, and one whose grader left no valid
 * `score.json` loads without one.
 *
 * The reward is `score_pct` / 100 (else a `reward` or `score` between 0 and 1); exit 124
 * (`timeout`'s) is a timeout, any other non-zero exit the agent process's, as Harbor reports one;
 * the outcome is decided as for a Harbor trial (a passing grade passes even after the limit).
 */
import { basename, join } from "node:path";
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import {
  aiderFirstRequest,
  aiderHistoryItems,
  aiderWithheldFailure,
  appendPrinted,
} from "./agent-printed.js";
import { EventLog } from "./events.js";
import { isFile, peek, readSmall } from "./fs-util.js";
import { decideOutcome } from "./harbor-outcome.js";
import { readJsonAsSync } from "./json-file.js";
import { attemptId, capString, taskIdFromText } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

const num = z.union([z.number(), z.string()]).nullish();

const Meta = z.looseObject({
  run_id: z.string().nullish(),
  eval: z.string().nullish(),
  task: z.string().nullish(),
  model: z.string().nullish(),
  harness: z.string().nullish(),
  agent: z.string().nullish(),
  exit_code: z.number().nullish(),
  wall_seconds: z.number().nullish(),
  tokens_in: z.number().nullish(),
  tokens_out: z.number().nullish(),
  score_pct: num,
  ts: z.string().nullish(),
});

const Check = z.looseObject({
  name: z.string(),
  pass: z.union([z.number(), z.boolean()]).nullish(),
  passed: z.boolean().nullish(),
  note: z.string().nullish(),
  message: z.string().nullish(),
});

const Score = z.looseObject({
  // each check on its own: one odd check does not cost the run its score
  checks: z.array(z.unknown()).nullish(),
  score_pct: num,
  reward: num,
  score: num,
});

/**
 * The agent transcripts a run folder may hold, in the order they are looked for: the copy the
 * harness makes when aider returns, else aider's own file where it left it (in the workspace,
 * when the run was killed before the copy).
 */
const TRANSCRIPTS = [
  "aider.chat.history.md",
  ".aider.chat.history.md",
  "workspace/.aider.chat.history.md",
];
/** Transcripts above this size are not read (they would not fit the trace caps anyway). */
const MAX_LOG = 64 << 20;
/** `timeout`'s exit status when it ended the command. */
const TIMEOUT_EXIT = 124;

const META_HEAD = /^\{[\s\S]*"(?:eval|task)"\s*:/;
const AGENT_HEAD = /"(?:harness|agent|model)"\s*:/;

/**
 * Whether a folder is such a run: a `meta.json` naming the task and the agent or model (a
 * `score.json` beside it holds the verdict; a grader that crashed may have left it empty).
 */
export function isRunFolder(dir: string): boolean {
  const meta = join(dir, "meta.json");
  if (!isFile(meta)) return false;
  const m = peek(meta, 8192).trimStart();
  return META_HEAD.test(m) && AGENT_HEAD.test(m);
}

const toNumber = (v: number | string | null | undefined): number | undefined => {
  if (v === null || v === undefined || v === "") return undefined;
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** The reward of a run: `score_pct` / 100, else `reward`, else a `score` of at most 1. */
function rewardOf(meta: z.infer<typeof Meta>, score: z.infer<typeof Score>): number | undefined {
  const pct = toNumber(score.score_pct) ?? toNumber(meta.score_pct);
  if (pct !== undefined) return pct / 100;
  // a reward or score is a fraction; another scale says nothing here
  for (const v of [toNumber(score.reward), toNumber(score.score)])
    if (v !== undefined && v >= 0 && v <= 1) return v;
  return undefined;
}

function checkPassed(c: z.infer<typeof Check>): boolean | undefined {
  if (typeof c.passed === "boolean") return c.passed;
  if (typeof c.pass === "boolean") return c.pass;
  if (typeof c.pass === "number") return c.pass > 0;
  return undefined;
}

async function* readRunFolder(dir: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const metaFile = join(dir, "meta.json");
  const scoreFile = join(dir, "score.json");
  const meta = readJsonAsSync(metaFile, Meta, "a run's meta.json (eval or task, model, exit_code)");
  if (!meta.ok) return yield { type: "error", error: meta.error };
  // a grader that wrote no valid score.json leaves the run without a verdict, not unread
  const scored = isFile(scoreFile)
    ? readJsonAsSync(scoreFile, Score, "a run's score.json (checks, score_pct)")
    : undefined;
  if (scored && !scored.ok) yield { type: "error", error: scored.error };
  const score = { value: scored?.ok ? scored.value : {} };
  const m = meta.value;
  const log = new EventLog(options.outputCap);
  let taskText = "";
  let transcript: string | undefined;
  let withheld: ReturnType<typeof aiderWithheldFailure>;
  for (const name of TRANSCRIPTS) {
    const file = join(dir, name);
    const text = readSmall(file, MAX_LOG);
    if (text === undefined) continue;
    transcript = file;
    taskText = aiderFirstRequest(text);
    appendPrinted(log, aiderHistoryItems(text, true));
    withheld = aiderWithheldFailure(text, file);
    break;
  }
  const exit = m.exit_code ?? undefined;
  // the CLI answered and exited on its own: its run ends with its stop
  if (transcript && exit === 0) log.stop();
  const reward = rewardOf(m, score.value);
  const exception =
    exit === TIMEOUT_EXIT
      ? { type: "Timeout", message: `the harness's time limit ended the run (exit ${exit})` }
      : exit !== undefined && exit !== 0
        ? { type: "NonZeroAgentExitCode", message: `the agent CLI ended with exit ${exit}` }
        : undefined;
  // the grader is the ground truth, even after the time limit (as for Harbor's trials)
  const outcome = decideOutcome(reward, exception, options.passThreshold);
  const checks = (score.value.checks ?? []).flatMap((c) => {
    const p = Check.safeParse(c);
    return p.success ? [p.data] : [];
  });
  const lines = [
    `score_pct: ${reward === undefined ? "none" : Math.round(reward * 1000) / 10}`,
    ...checks.map((c) => {
      const ok = checkPassed(c);
      const note = c.note || c.message;
      return `${ok === undefined ? "?" : ok ? "PASS" : "FAIL"} ${c.name}${note ? ` — ${note}` : ""}`;
    }),
  ];
  const taskId = m.eval ?? m.task ?? (taskText ? taskIdFromText(taskText) : basename(dir));
  const attempt: AttemptInput = {
    id: attemptId("run-folder", dir, m.run_id ?? basename(dir)),
    source: { format: "run-folder", path: dir },
    taskId,
    taskText,
    agent: m.agent ?? m.harness ?? (transcript ? "aider" : undefined),
    model: m.model ?? undefined,
    outcome,
    reward: reward ?? null,
    exception,
    ...(withheld ? { harnessFailure: withheld } : {}),
    // a harness that writes 0 for counts it could not read: none, not zero
    tokens:
      m.tokens_in || m.tokens_out
        ? normTokens({ input: m.tokens_in, output: m.tokens_out })
        : undefined,
    durationS:
      m.wall_seconds !== null && m.wall_seconds !== undefined && m.wall_seconds >= 0
        ? m.wall_seconds
        : undefined,
    verifierOutput: capString(lines.join("\n"), options.outputCap),
    ...(scored?.ok ? { verifierSource: { file: scoreFile } } : {}),
    verifierTests: checks.length
      ? checks.map((c) => {
          const ok = checkPassed(c);
          const note = c.note || c.message;
          return {
            name: c.name,
            status:
              ok === undefined
                ? ("other" as const)
                : ok
                  ? ("passed" as const)
                  : ("failed" as const),
            ...(note ? { message: note } : {}),
            file: scoreFile,
          };
        })
      : undefined,
    ...(exit !== undefined && exit !== 0
      ? { agentEnd: { exitCode: exit, exitFile: metaFile } }
      : {}),
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

export const runFolderImporter: Importer = {
  format: "run-folder",
  detect: (path, _head, isDirectory) => isDirectory && isRunFolder(path),
  read: (path, options) => readRunFolder(path, options),
};
