/**
 * SWE-agent trajectories (princeton-nlp/SWE-agent 0.x and 1.x, and systems built on it such as
 * CodeR): one JSON object per instance, `<instance>.traj`, with `trajectory` (one step per
 * model turn: `action`, `observation`, `response`, `thought`, `state`), `history` (the chat,
 * each assistant turn tagged with the role that spoke in CodeR: Manager, Reproducer, Debugger,
 * Programmer, Tester) and `info` (`exit_status`, `submission`, `model_stats`). The verdict
 * lives apart: a run summary with a `resolved` / `resolved_ids` list (the old SWE-bench
 * harness's `results.json`, sb-cli's results), looked up in the trajectory's folder and up to
 * three parent folders, the instance's old-harness `logs/<instance>.<run>.eval.log` or a
 * SWE-bench `report.json` under a `logs/` folder beside them or in the instance's own folder.
 * Never read: the benchmark's gold patch or test patch (no file here holds them).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError, parseJsonText } from "../errors.js";
import { type AttemptInput, UNFINISHED_TRIAL } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { isDir, isFile, peek, readSmall, scanFor, subdirs } from "./fs-util.js";
import { readJsonAs, validate } from "./json-file.js";
import { isMiniTrajectory } from "./mini-swe-agent.js";
import { filesStamp } from "./stamp.js";
import { aciFailed, classifyAction, exitOf, parseState, TIMED_OUT } from "./swe-agent-actions.js";
import {
  cappedSection,
  evalLogIn,
  listsNaming,
  readEvalLog,
  testSection,
  testsShown,
  withoutTrailingCommas,
} from "./swebench-eval-log.js";
import {
  entryOf,
  failingLines,
  loggedReport,
  Report,
  type ReportEntry,
  reportTestsWithOutput,
} from "./swebench-report.js";
import { attemptId, capString, partsText } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";
import { capTests, type VerifierTest } from "./verifier-tests.js";

const num = z.number().nullish();

const Step = z.looseObject({
  action: z.string(),
  observation: z.string().nullish(),
  response: z.string().nullish(),
  thought: z.string().nullish(),
  state: z.unknown().optional(),
});

const Message = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  agent: z.string().nullish(),
  is_demo: z.boolean().nullish(),
});

export const SweAgentTrajectory = z.looseObject({
  environment: z.string().nullish(),
  trajectory: z.array(Step),
  history: z.array(Message).nullish(),
  info: z
    .looseObject({
      exit_status: z.string().nullish(),
      submission: z.string().nullish(),
      model_stats: z
        .looseObject({ instance_cost: num, tokens_sent: num, tokens_received: num, api_calls: num })
        .nullish(),
    })
    .nullish(),
});
type SweAgentTrajectory = z.infer<typeof SweAgentTrajectory>;

const TRAJ_KEY = /"trajectory"\s*:\s*\[/;
const STEP_KEYS = /"action"\s*:/;
const OBS_KEY = /"observation"\s*:/;
const RUN_KEY = /"(?:environment|info|history)"\s*:/;

/**
 * Whether a file is a SWE-agent trajectory, by its head: a JSON object with a `trajectory`
 * list of steps that have `action` and `observation`, and `environment`, `history` or `info`
 * beside it (a mini-SWE-agent `.traj.json`, which keeps `messages`, is not).
 */
export function isSweAgentTrajectory(path: string, head: string): boolean {
  const h = head.trimStart();
  if (!h.startsWith("{") || !TRAJ_KEY.test(h)) return false;
  if (!STEP_KEYS.test(h) || !OBS_KEY.test(h)) return false;
  // 1.x writes `info` and `environment` last, after steps whose `query` may be long
  if (!RUN_KEY.test(h) && !scanFor(path, RUN_KEY)) return false;
  return !isMiniTrajectory(path, head);
}

/** Instance id of a trajectory: the file name before `.traj` (`.traj.json`, `.json`). */
export function instanceOf(path: string): string {
  return basename(path).replace(/(\.traj)?(\.json)?$/i, "");
}

// ------------------------------------------------------------------------------ verdict

/** A run summary's list of resolved ids (old harness `resolved`, sb-cli `resolved_ids`). */
const SUMMARY_KEY = /"resolved(?:_ids)?"\s*:\s*\[/;
/** Lists of a summary that name an instance without grading it. */
const NOT_GRADED = new Set(["submitted_ids", "incomplete_ids", "submitted", "incomplete"]);

const Summary = z
  .record(z.string(), z.unknown())
  .refine((v) => Array.isArray(v.resolved) || Array.isArray(v.resolved_ids), {
    message: "a `resolved` or `resolved_ids` list",
  });

/** Kept a few seconds per folder and its modification time: every trajectory asks again. */
const summaryIndex = new Map<string, { at: number; mtime: number; files: string[] }>();

/** The run summaries in one folder: `*.json` files with a `resolved` list. */
function summariesIn(dir: string): string[] {
  const mtime = statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const kept = summaryIndex.get(dir);
  if (kept && kept.mtime === mtime && Date.now() - kept.at < 10_000) return kept.files;
  let names: string[] = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  const files = names
    .filter((n) => n.toLowerCase().endsWith(".json") && n !== "report.json")
    .map((n) => join(dir, n))
    .filter((f) => isFile(f) && scanFor(f, SUMMARY_KEY, 64 << 20));
  if (summaryIndex.size > 256) summaryIndex.clear();
  summaryIndex.set(dir, { at: Date.now(), mtime, files });
  return files;
}

/** The trajectory's folder and up to three parents. */
function nearFolders(trajPath: string): string[] {
  const out: string[] = [];
  let d = dirname(trajPath);
  for (let i = 0; i < 4; i++) {
    out.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return out;
}

/**
 * The summary files a trajectory's verdict may be in, nearest first: in a near folder or its
 * `results/` folder (a SWE-bench submission keeps `results/results.json` beside `trajs/`).
 */
function summaryFiles(trajPath: string): string[] {
  return nearFolders(trajPath).flatMap((d) => [
    ...summariesIn(d),
    ...summariesIn(join(d, "results")),
  ]);
}

const parsedSummaries = new Map<string, { key: string; lists: Record<string, unknown> }>();

/** A summary's lists, its trailing commas tolerated; an error names the file. */
function loadSummary(file: string): { lists?: Record<string, unknown>; error?: InputError } {
  const st = statSync(file, { throwIfNoEntry: false });
  const key = `${st?.size}-${st?.mtimeMs}`;
  const kept = parsedSummaries.get(file);
  if (kept?.key === key) return { lists: kept.lists };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { error: new InputError(file, undefined, `unreadable: ${(err as Error).message}`) };
  }
  let value: unknown;
  try {
    value = parseJsonText(withoutTrailingCommas(text), file);
  } catch (err) {
    if (err instanceof InputError) return { error: err };
    throw err;
  }
  const r = validate(
    file,
    value,
    Summary,
    "a SWE-bench run summary (resolved[] or resolved_ids[])",
  );
  if (!r.ok) return { error: r.error };
  if (parsedSummaries.size > 64) parsedSummaries.clear();
  parsedSummaries.set(file, { key, lists: r.value });
  return { lists: r.value };
}

/** The `logs/` folders a trajectory's per-instance grading may be in. */
function logsFolders(trajPath: string): string[] {
  return nearFolders(trajPath)
    .map((d) => join(d, "logs"))
    .filter(isDir);
}

/** The instance's old-harness eval log: in a `logs/` folder near it, or its own folder. */
function evalLogOf(trajPath: string, instance: string) {
  const own = dirname(trajPath);
  const places = [...logsFolders(trajPath), ...(basename(own) === instance ? [own] : [])];
  for (const d of places) {
    const found = evalLogIn(d, instance);
    if (found) return found;
  }
  return undefined;
}

/** The grading files of one instance folder: the harness's `report.json` and its log. */
interface Graded {
  report?: string;
  log?: string;
}

const RUN_LOG = "run_instance.log";

/** What an instance folder holds of its grading, if anything. */
function gradedIn(folder: string): Graded | undefined {
  const report = join(folder, "report.json");
  const log = join(folder, RUN_LOG);
  const g: Graded = {
    ...(isFile(report) ? { report } : {}),
    ...(isFile(log) ? { log } : {}),
  };
  return g.report || g.log ? g : undefined;
}

/**
 * The instance folders below a `logs/` folder that hold a `report.json` or the harness's
 * `run_instance.log`, by instance folder name.
 */
const reportIndex = new Map<string, { at: number; mtime: number; byFolder: Map<string, Graded> }>();
function reportsBelow(logs: string): Map<string, Graded> {
  const mtime = statSync(logs, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const kept = reportIndex.get(logs);
  if (kept && kept.mtime === mtime && Date.now() - kept.at < 10_000) return kept.byFolder;
  const byFolder = new Map<string, Graded>();
  // the harness keeps logs/run_evaluation/<run>/<model>/<instance>/{report.json,run_instance.log};
  // a submission's copy keeps logs/<instance>/…
  const walk = (d: string, depth: number): void => {
    for (const sub of subdirs(d)) {
      const p = join(d, sub);
      const g = byFolder.has(sub) ? undefined : gradedIn(p);
      if (g) byFolder.set(sub, g);
      else if (depth < 4) walk(p, depth + 1);
    }
  };
  walk(logs, 1);
  if (reportIndex.size > 64) reportIndex.clear();
  reportIndex.set(logs, { at: Date.now(), mtime, byFolder });
  return byFolder;
}

/** The instance's grading files: in its own folder, else under a `logs/` folder. */
function gradingOf(trajPath: string, instance: string): Graded | undefined {
  const own = dirname(trajPath);
  const mine = basename(own) === instance ? gradedIn(own) : undefined;
  if (mine) return mine;
  for (const logs of logsFolders(trajPath)) {
    const g = reportsBelow(logs).get(instance);
    if (g) return g;
  }
  return undefined;
}

/** A run's predictions file (SWE-bench's `all_preds.jsonl` / `preds.json`), beside `trajs/`. */
const PREDS_NAME = /^(?:all_)?preds\.jsonl?$/;

/** The predictions files in the trajectory's folder and its parent, nearest first. */
function predsFiles(trajPath: string): string[] {
  return nearFolders(trajPath)
    .slice(0, 2)
    .flatMap((d) => {
      try {
        return readdirSync(d)
          .filter((n) => PREDS_NAME.test(n))
          .sort()
          .map((n) => join(d, n));
      } catch {
        return [];
      }
    });
}

/** Models by instance, per predictions file and its stamp: every trajectory asks again. */
const predsModels = new Map<string, { key: string; byInstance: Map<string, string> }>();

/**
 * The model a run's predictions file names for the instance: `model_name_or_path`, whose first
 * `__` part is the model in SWE-agent's run names (`gpt-4o-2024-05-13__swe-bench-java__default__t-0.00…`).
 * Only the trajectory's folder and its parent are looked in (the run folder holds `trajs/`).
 */
function predictedModel(trajPath: string, instance: string): string | undefined {
  for (const file of predsFiles(trajPath)) {
    const st = statSync(file, { throwIfNoEntry: false });
    const key = `${st?.size}-${st?.mtimeMs}`;
    let kept = predsModels.get(file);
    if (kept?.key !== key) {
      kept = { key, byInstance: modelsIn(readSmall(file, 256 << 20) ?? "") };
      if (predsModels.size > 64) predsModels.clear();
      predsModels.set(file, kept);
    }
    const m = kept.byInstance.get(instance);
    if (m) return m;
  }
  return undefined;
}

/** `instance_id` → model of each prediction in a JSON array or JSON-lines text (bad lines skipped). */
function modelsIn(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = (v: unknown): void => {
    const r = v as { instance_id?: unknown; model_name_or_path?: unknown } | null;
    if (typeof r?.instance_id !== "string" || typeof r.model_name_or_path !== "string") return;
    const model = r.model_name_or_path.split("__")[0]?.trim();
    if (model) out.set(r.instance_id, model);
  };
  const t = text.trimStart();
  try {
    if (t.startsWith("[")) for (const v of JSON.parse(t) as unknown[]) add(v);
    else if (t.startsWith("{") && !t.includes("\n{")) {
      const v = JSON.parse(t) as Record<string, unknown>;
      if ("instance_id" in v) add(v);
      else for (const x of Object.values(v)) add(x);
    } else
      for (const line of t.split("\n")) {
        if (!line.trim()) continue;
        try {
          add(JSON.parse(line));
        } catch {
          // a bad line names no model; the file's other lines still do
        }
      }
  } catch {
    // not JSON: no model from it
  }
  return out;
}

/** The tests an eval log shows, failing ones first (the harness's own groups are not here). */
function logTests(section: { text: string; firstLine: number }, file: string): VerifierTest[] {
  const tests = [...testsShown(section, file).values()];
  const bad = (t: VerifierTest) => t.status === "failed" || t.status === "error";
  return capTests([...tests.filter(bad), ...tests.filter((t) => !bad(t))]);
}

// ------------------------------------------------------------------------------ events

/** The issue inside SWE-agent's instance template (`ISSUE:` … `INSTRUCTIONS:`, `<pr_description>`). */
export function issueOf(message: string): string {
  const text = message.trim();
  const pr = /<pr_description>\s*([\s\S]*?)\s*<\/pr_description>/.exec(text)?.[1];
  if (pr) return pr;
  const at = text.indexOf("ISSUE:\n");
  if (at !== -1) {
    const body = text.slice(at + "ISSUE:\n".length);
    const end = body.search(/\n\s*INSTRUCTIONS?:\s*\n/);
    const issue = (end === -1 ? body : body.slice(0, end)).trim();
    if (issue) return issue;
  }
  return text;
}

interface Pending {
  callId: string;
  output: string;
}

function buildEvents(
  t: SweAgentTrajectory,
  log: EventLog,
): { taskText: string; lastExitAction?: string; submitted: boolean } {
  const history = (t.history ?? []).filter((m) => !m.is_demo);
  const turns = history.filter((m) => m.role === "assistant");
  const system = history.find((m) => m.role === "system");
  const firstUser = history.find((m) => m.role === "user");
  const prompt = firstUser ? partsText(firstUser.content ?? "") : "";
  if (system) log.text("message", "system", capString(partsText(system.content ?? ""), 4_000));
  if (prompt) log.text("prompt", "user", prompt);
  // the role of each step: its assistant message's `agent` (CodeR); SWE-agent 1.x names its
  // one agent `main`, which marks nothing
  const roles = new Set(turns.map((m) => m.agent ?? undefined));
  const multi = roles.size > 1 || roles.has("Manager");
  let turn = 0;
  let speaker: string | undefined;
  let plan: Pending | undefined;
  let lastExitAction: string | undefined;
  let submitted = false;
  const flushPlan = () => {
    if (plan) log.result({ output: plan.output, callId: plan.callId, exitCode: 0 });
    plan = undefined;
  };
  for (const [i, step] of t.trajectory.entries()) {
    // the step's assistant message: the i-th, checked by its text (a history with turns the
    // trajectory does not keep, such as retried malformed replies, is searched forward)
    const found = turns.findIndex(
      (m, j) => j >= turn && step.response != null && partsText(m.content ?? "") === step.response,
    );
    const at = found === -1 ? i : found;
    if (found !== -1) turn = found + 1;
    const agent = multi ? (turns[at]?.agent ?? undefined) : undefined;
    // a plan's observation is what its roles concluded: it comes back when the Manager speaks
    if (agent === "Manager" || agent === undefined) flushPlan();
    if (agent && agent !== speaker) log.text("message", "system", `[${agent} speaks]`);
    speaker = agent ?? speaker;
    const observation = step.observation ?? "";
    const state = parseState(step.state);
    const a = classifyAction(step.action, state);
    // an exit step's "thought" is the harness's ("Exit due to cost limit"), not the model's
    const thought = a.kind === "exit" ? "" : (step.thought ?? "").trim();
    if (thought) log.text("message", "agent", thought);
    const callId = `step-${i}`;
    switch (a.kind) {
      case "none":
        break;
      case "exit":
        lastExitAction = a.status;
        break;
      case "shell": {
        log.call({ tool: "bash", args: { command: a.command }, callId });
        const timedOut = TIMED_OUT.test(observation.trimStart());
        log.result({ output: observation, callId, isError: timedOut ? true : undefined });
        break;
      }
      case "read":
      case "write":
      case "edit-nofile":
      case "role-end": {
        const writes = a.kind === "write" ? a.writes : undefined;
        log.call({ tool: a.tool, args: a.args, callId, writes });
        const failed =
          a.kind === "edit-nofile" || (a.kind !== "role-end" && aciFailed(observation));
        log.result({
          output: observation,
          callId,
          exitCode: failed ? 1 : 0,
          isError: failed ? true : undefined,
        });
        break;
      }
      case "plan":
        flushPlan();
        log.call({ tool: "plan", args: { plan: a.plan }, callId });
        if (agent === "Manager") plan = { callId, output: observation };
        else log.result({ output: observation, callId, exitCode: 0 });
        break;
      case "submit":
        flushPlan();
        log.call({ tool: "submit", args: {}, callId });
        log.result({ output: observation || (t.info?.submission ?? ""), callId, exitCode: 0 });
        submitted = true;
        break;
    }
  }
  flushPlan();
  return { taskText: prompt ? issueOf(prompt) : "", lastExitAction, submitted };
}

// ------------------------------------------------------------------------------ reading

async function* readSweAgent(path: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  if (!isSweAgentTrajectory(path, peek(path, 64 * 1024))) {
    // a run summary, a predictions file or a report, claimed so it is no error: read with the
    // trajectories
    return;
  }
  const loaded = await readJsonAs(
    path,
    SweAgentTrajectory,
    "a SWE-agent trajectory (trajectory[{action, observation}], history, info)",
  );
  if (!loaded.ok) {
    yield { type: "error", error: loaded.error };
    return;
  }
  const t = loaded.value;
  const instance = instanceOf(path);
  const log = new EventLog(options.outputCap);
  const built = buildEvents(t, log);
  const status = t.info?.exit_status ?? undefined;
  const exception = exitOf(status, built.lastExitAction);
  if (exception) log.text("message", "system", exception.message);
  // a run whose status is `submitted` ended by its own submission, even where its last step
  // is no `submit` (CodeR submits when the last plan's roles are done)
  else if (built.submitted || status === "submitted") log.stop();

  // the verdict: the nearest summary naming the instance, its eval log, its report.json
  let lists: string[] = [];
  let summaryFile: string | undefined;
  for (const f of summaryFiles(path)) {
    const s = loadSummary(f);
    if (s.error) {
      yield { type: "error", error: s.error };
      continue;
    }
    const named = listsNaming(s.lists ?? {}, instance);
    if (named.length > 0) {
      lists = named;
      summaryFile = f;
      break;
    }
  }
  const graded = lists.filter((l) => !NOT_GRADED.has(l));
  let entry: ReportEntry | undefined;
  let reportFile: string | undefined;
  const grading = gradingOf(path, instance);
  if (grading?.report) {
    const r = await readJsonAs(
      grading.report,
      Report,
      "a SWE-bench report (resolved, tests_status)",
    );
    if (!r.ok) yield { type: "error", error: r.error };
    else {
      entry = entryOf(r.value, instance);
      if (entry) reportFile = grading.report;
    }
  }
  if (!entry && grading?.log) {
    // the harness's log prints the same report (a submission may keep only the log)
    const text = readSmall(grading.log, 32 << 20);
    const logged = text === undefined ? undefined : loggedReport(text, grading.log, instance);
    if (logged && "error" in logged) yield { type: "error", error: logged.error };
    else if (logged) {
      entry = logged.entry;
      reportFile = grading.log;
    }
  }
  const resolved =
    graded.length > 0
      ? graded.includes("resolved") || graded.includes("resolved_ids")
      : entry
        ? entry.resolved
        : undefined;
  const evalLog = evalLogOf(path, instance);
  const logText = evalLog ? readEvalLog(evalLog.file) : undefined;
  const section = logText !== undefined ? testSection(logText) : undefined;
  const shown = section ? cappedSection(section, options.outputCap) : undefined;
  let verifierOutput: string | undefined;
  let verifierSource: AttemptInput["verifierSource"];
  let verifierTests: VerifierTest[] | undefined;
  if (shown && evalLog) {
    verifierOutput = shown.text;
    verifierSource = { file: evalLog.file, firstLine: shown.firstLine };
  } else if (entry && reportFile) {
    const lines = [`resolved: ${entry.resolved}`];
    if (entry.patch_successfully_applied === false) lines.push("patch not applied");
    verifierOutput = capString([...lines, ...failingLines(entry)].join("\n"), options.outputCap);
    verifierSource = { file: reportFile };
  } else if (summaryFile) {
    verifierOutput = `the run summary lists the instance in: ${lists.join(", ")} (no eval log of the instance was found)`;
    verifierSource = { file: summaryFile };
  }
  // SWE-agent writes an exit status whenever it ends a run (a submission, a limit, an error):
  // a trajectory without one that nothing graded was stopped from outside mid-run
  const unfinished =
    !exception && status === undefined && !built.submitted && resolved === undefined
      ? {
          type: UNFINISHED_TRIAL,
          message:
            "the trajectory ends without SWE-agent's exit status and nothing graded it: the run was stopped mid-trial",
        }
      : undefined;
  if (unfinished) log.text("message", "system", unfinished.message);
  if (entry && reportFile) verifierTests = reportTestsWithOutput(entry, reportFile);
  else if (section && evalLog && resolved !== undefined) {
    const tests = logTests(section, evalLog.file);
    if (tests.length > 0) verifierTests = tests;
  }
  const stats = t.info?.model_stats;
  const attempt: AttemptInput = {
    id: attemptId("swe-agent", `${instance}\u0000${path}`, instance),
    source: { format: "swe-agent", path },
    taskId: instance,
    taskText: built.taskText,
    agent: "swe-agent",
    model: evalLog?.model ?? predictedModel(path, instance),
    outcome: resolved === undefined ? "unknown" : resolved ? "pass" : "fail",
    reward: resolved === undefined ? null : resolved ? 1 : 0,
    exception: exception ?? unfinished,
    costUsd: stats?.instance_cost ?? undefined,
    tokens: normTokens({ input: stats?.tokens_sent, output: stats?.tokens_received }),
    verifierOutput,
    verifierSource,
    verifierTests,
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

// --------------------------------------------------------------------------- side files

/** Whether a folder (or its folders, two deep) holds a SWE-agent trajectory file. */
function holdsTrajectories(dir: string, depth = 0): boolean {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  if (names.some((n) => n.endsWith(".traj"))) return true;
  return depth < 2 && subdirs(dir).some((s) => holdsTrajectories(join(dir, s), depth + 1));
}

/** A predictions file of a run (`all_preds.jsonl`, `preds.json`): `model_patch` per instance. */
const PREDS_HEAD = /^[[{]\s*"(?:model_name_or_path|instance_id|model_patch)"|"model_patch"\s*:/;

/** A SWE-bench report.json head: an entry, or an instance id keying one. */
const REPORT_HEAD = /^\{\s*(?:"([^"\\]{1,200})"\s*:\s*\{\s*)?"patch_is_None"\s*:/;

/** `.traj` files below a folder (four deep) by instance, kept a few seconds per folder. */
const trajIndex = new Map<
  string,
  { at: number; mtime: number; byInstance: Map<string, string[]> }
>();
function trajectoriesBelow(root: string): Map<string, string[]> {
  const mtime = statSync(root, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const kept = trajIndex.get(root);
  if (kept && kept.mtime === mtime && Date.now() - kept.at < 10_000) return kept.byInstance;
  const byInstance = new Map<string, string[]>();
  const walk = (d: string, depth: number): void => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      if (n.endsWith(".traj")) {
        const id = instanceOf(n);
        byInstance.set(id, [...(byInstance.get(id) ?? []), join(d, n)]);
      }
    }
    if (depth < 4) for (const sub of subdirs(d)) if (sub !== "logs") walk(join(d, sub), depth + 1);
  };
  walk(root, 0);
  if (trajIndex.size > 64) trajIndex.clear();
  trajIndex.set(root, { at: Date.now(), mtime, byInstance });
  return byInstance;
}

/**
 * Whether a SWE-bench `report.json` is the verdict of a SWE-agent trajectory (the reverse of
 * `reportOf`): one in its own folder, or one below the folder holding the `logs/` above it.
 */
function pairsWithTrajectory(reportPath: string, head: string): boolean {
  const dir = dirname(reportPath);
  const keyed = REPORT_HEAD.exec(head.trimStart())?.[1];
  const instances = new Set([basename(dir), ...(keyed ? [keyed] : [])]);
  let logs: string | undefined;
  for (let d = dirname(dir), i = 0; i < 6 && d !== dirname(d); i++, d = dirname(d))
    if (basename(d) === "logs") {
      logs = d;
      break;
    }
  for (const id of instances) {
    const near = [
      join(dir, `${id}.traj`),
      ...(logs ? (trajectoriesBelow(dirname(logs)).get(id) ?? []) : []),
    ];
    for (const t of near)
      if (
        isFile(t) &&
        isSweAgentTrajectory(t, peek(t, 64 * 1024)) &&
        gradingOf(t, id)?.report === reportPath
      )
        return true;
  }
  return false;
}

/**
 * The head of a run summary: a dict of lists (`{"no_generation": [`), or of counts and lists
 * (the newer harness: `{"total_instances": 91, …, "resolved_ids": [`).
 */
const LISTS_HEAD = /^\{\s*"[^"\\]{1,100}"\s*:\s*[[\d]/;

/**
 * A run's summary or predictions beside its trajectories: read with them, never a source of
 * its own (claimed so that discovery does not call them unknown files).
 */
function isRunSideFile(path: string, head: string): boolean {
  const name = basename(path);
  const h = head.trimStart();
  if (name === "report.json") return REPORT_HEAD.test(h) && pairsWithTrajectory(path, head);
  // a summary's `resolved` list may come after long lists: its head is a dict of lists
  const summary =
    name.endsWith(".json") &&
    name !== "report.json" &&
    LISTS_HEAD.test(h) &&
    (SUMMARY_KEY.test(h) || scanFor(path, SUMMARY_KEY, 64 << 20));
  const preds = !summary && /\.jsonl?$/.test(name) && PREDS_HEAD.test(h.slice(0, 4096));
  const dir = dirname(path);
  // a submission's summary may sit in a `results/` folder beside its `trajs/`
  const runDir = basename(dir) === "results" ? dirname(dir) : undefined;
  return (
    (summary || preds) &&
    (holdsTrajectories(dir) || (!!runDir && summary && holdsTrajectories(runDir)))
  );
}

/** The files a trajectory's reading takes from outside it. */
function outsideFiles(path: string): string[] {
  if (!/\.traj$/i.test(path) && !isSweAgentTrajectory(path, peek(path, 64 * 1024))) return [];
  const instance = instanceOf(path);
  const out = [...summaryFiles(path), ...logsFolders(path), ...predsFiles(path)];
  const log = evalLogOf(path, instance);
  if (log) out.push(log.file);
  const graded = gradingOf(path, instance);
  if (graded?.report) out.push(graded.report, join(dirname(graded.report), "test_output.txt"));
  if (graded?.log) out.push(graded.log);
  return out;
}

export const sweAgentImporter: Importer = {
  format: "swe-agent",
  detect: (path, head, isDirectory) =>
    !isDirectory && (isSweAgentTrajectory(path, head) || isRunSideFile(path, head)),
  read: (path, options) => readSweAgent(path, options),
  outsideStamp: (path) => filesStamp(outsideFiles(path)),
};
