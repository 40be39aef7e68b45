/**
 * mini-SWE-agent trajectories (`<instance>.traj.json`): one JSON object with `info`
 * (`exit_status`, `submission`, `model_stats`, `mini_version`, `config`), the chat
 * `messages` and `trajectory_format`. The agent acts through exactly one fenced bash block
 * per assistant message; the next user message is the observation (`<returncode>` and
 * `<output>`, or `<output_head>` / `<elided_chars>` / `<output_tail>` when long). The
 * verdict lives apart, in a SWE-bench `report.json` for the instance, looked up next to
 * the trajectory and in the sibling folders of its parents (`logs/<instance>/report.json`),
 * else in the run summary the harness wrote near the run (`<model>.<run_id>.json`), read as
 * SWE-agent's (swebench-submission.ts).
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { isFile, peek, readSmall, readTail, scanFor, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import {
  instanceOf,
  miniOutsideStamp,
  REPORT_HEAD,
  reportCandidates,
  reportOf,
} from "./mini-swe-paths.js";
import { observation, refusedAction } from "./observation-template.js";
import { toolArguments } from "./shell.js";
import {
  failingLines,
  Report,
  type ReportEntry,
  reportTestsWithOutput,
} from "./swebench-report.js";
import { submissionVerdict } from "./swebench-submission.js";
import { attemptId, capString, partsText } from "./text.js";
import { addTokens, normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

const num = z.number().nullish();

const Usage = z.looseObject({
  prompt_tokens: num,
  completion_tokens: num,
  prompt_tokens_details: z.looseObject({ cached_tokens: num }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: num }).nullish(),
});

export const MiniTrajectory = z.looseObject({
  info: z.looseObject({
    exit_status: z.string().nullish(),
    submission: z.string().nullish(),
    model_stats: z.looseObject({ instance_cost: num, api_calls: num }).nullish(),
    mini_version: z.string().nullish(),
    config: z
      .looseObject({
        model: z.looseObject({ model_name: z.string().nullish() }).nullish(),
        agent: z.looseObject({ instance_template: z.string().nullish() }).nullish(),
      })
      .nullish(),
  }),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      content: z.unknown().optional(),
      /** Tool-calling mode (2.x): the calls of an assistant message, OpenAI style. */
      tool_calls: z
        .array(
          z.looseObject({
            id: z.string().nullish(),
            function: z.looseObject({ name: z.string().nullish(), arguments: z.unknown() }),
          }),
        )
        .nullish(),
      /** Tool-calling mode: the call a `tool` message answers. */
      tool_call_id: z.string().nullish(),
      extra: z
        .looseObject({
          response: z.looseObject({ usage: Usage.nullish() }).nullish(),
          actions: z
            .array(
              z.looseObject({ command: z.string().nullish(), tool_call_id: z.string().nullish() }),
            )
            .nullish(),
        })
        .nullish(),
    }),
  ),
  trajectory_format: z.string().nullish(),
  instance_id: z.string().nullish(),
});
type MiniTrajectory = z.infer<typeof MiniTrajectory>;

const HEAD = /^\{\s*"info"\s*:\s*\{/;
const EXIT_STATUS = /"exit_status"\s*:/;
const MINI_KEY = /"trajectory_format"\s*:\s*"mini-swe-agent|"mini_version"\s*:/;

/** Whether a file is a mini-SWE-agent trajectory (its keys sit after a long diff: scan on). */
export function isMiniTrajectory(path: string, head: string): boolean {
  const h = head.trimStart();
  if (!HEAD.test(h) || !EXIT_STATUS.test(h)) return false;
  return MINI_KEY.test(h) || scanFor(path, MINI_KEY);
}

/**
 * Whether a trajectory file belongs to the report at `reportPath` (the reverse lookup): one
 * named after its instance beside it, one folder up, or one or two folders below the four
 * folders above it whose report is this one. The folders above are tried fewest subfolders
 * first, and the first pair ends the search: a run's `trajs/` beside `logs/` is tried before
 * the instance folders of `logs/`, which made every report of a run try every other
 * instance's folder (discovery quadratic in the run's size: 31 s at 1600 instances).
 */
function hasPairedTrajectory(reportPath: string): boolean {
  const dir = dirname(reportPath);
  // the instance: the folder's name, else the key of a report kept in a folder of its own
  const keyed = /^\{\s*"([^"\\]{1,200})"\s*:\s*\{/.exec(peek(reportPath, 4096).trimStart())?.[1];
  const instances = [...new Set([basename(dir), ...(keyed ? [keyed] : [])])];
  const tried = new Set<string>();
  const pairs = (f: string): boolean => {
    if (tried.has(f)) return false;
    tried.add(f);
    return isFile(f) && isMiniTrajectory(f, peek(f, 64 * 1024)) && reportOf(f) === reportPath;
  };
  for (const instance of instances) {
    const name = `${instance}.traj.json`;
    if (pairs(join(dir, name)) || pairs(join(dirname(dir), name))) return true;
  }
  const above: { at: string; subs: string[] }[] = [];
  let at = dir;
  for (let up = 0; up < 4; up++) {
    at = dirname(at);
    above.push({ at, subs: subdirs(at) });
  }
  above.sort((a, b) => a.subs.length - b.subs.length);
  for (const { at, subs } of above)
    for (const instance of instances) {
      const name = `${instance}.traj.json`;
      for (const sub of subs)
        if (pairs(join(at, sub, name)) || pairs(join(at, sub, instance, name))) return true;
    }
  return false;
}

/**
 * The SWE-bench harness's log of an instance whose patch could not be applied (it writes no
 * report then): `run_instance.log` where the report would be, holding `Patch Apply Failed`.
 * Returns the file and the lines from that one on.
 */
function patchNotApplied(
  trajPath: string,
  t?: MiniTrajectory,
): { file: string; text: string } | undefined {
  const instance = instanceOf(trajPath, t);
  for (const r of reportCandidates(dirname(trajPath), instance)) {
    const f = join(dirname(r), "run_instance.log");
    if (!isFile(f)) continue;
    const at = basename(dirname(f)) === instance || dirname(f) !== dirname(trajPath);
    if (!at) continue;
    // the first failure line is near the top; a long log keeps only its tail in reach
    const text = readSmall(f, 4 << 20) ?? readTail(f, 64 * 1024) ?? "";
    const i = text.indexOf(">>>>> Patch Apply Failed");
    if (i !== -1 && text.includes(instance)) return { file: f, text: text.slice(i) };
  }
  return undefined;
}

type BashBlock = { command: string; start: number; end: number };

/** Every fenced bash block of an assistant message, in order. */
function bashBlocks(text: string): BashBlock[] {
  const found: BashBlock[] = [];
  for (let i = text.indexOf("```bash"); i !== -1; i = text.indexOf("```bash", i + 1)) {
    const nl = text.indexOf("\n", i);
    if (nl === -1 || text.slice(i + 7, nl).trim() !== "") continue;
    const close = text.indexOf("\n```", nl);
    if (close === -1) continue;
    found.push({ command: text.slice(nl + 1, close), start: i, end: close + 4 });
    i = close;
  }
  return found;
}

/** The single bash block of an assistant message (mini-SWE-agent runs only exactly one). */
export function bashAction(text: string): BashBlock | undefined {
  const found = bashBlocks(text);
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The blocks of a reply the harness refused for holding more than one ("Please always provide
 * EXACTLY ONE action …, found 2 actions."): each is a call the agent asked for that never ran,
 * recorded with the refusal as its result (as Harbor's converter records such a reply's first
 * block), so an edit the agent believed made is seen as one that was refused. None when the
 * reply has fewer than two blocks or the next message is no refusal.
 */
function refusedBlocks(text: string, next: string | undefined): BashBlock[] {
  if (next === undefined || !refusedAction(next)) return [];
  const found = bashBlocks(text);
  return found.length > 1 ? found : [];
}

/** The calls of a tool-calling assistant message: its `tool_calls`, else `extra.actions`. */
function toolCalls(
  m: MiniTrajectory["messages"][number],
): { id: string; tool: string; args: unknown }[] {
  const out: { id: string; tool: string; args: unknown }[] = [];
  for (const [i, c] of (m.tool_calls ?? []).entries()) {
    const args = toolArguments(c.function.arguments);
    out.push({ id: c.id ?? `call-${i}`, tool: c.function.name ?? "bash", args });
  }
  if (out.length === 0)
    for (const [i, a] of (m.extra?.actions ?? []).entries())
      if (a.command)
        out.push({
          id: a.tool_call_id ?? `action-${i}`,
          tool: "bash",
          args: { command: a.command },
        });
  return out;
}

/**
 * A run that submitted the diff of its work tree and printed nothing: the last call prints the
 * submission marker and runs `git diff`, and the trajectory's `submission` (what it printed
 * after the marker) is empty. The patch graded is then empty, whatever the agent changed.
 */
function emptyDiffSubmission(
  t: MiniTrajectory,
  events: readonly { kind: string; command?: string }[],
): boolean {
  if (t.info.exit_status !== "Submitted" || typeof t.info.submission !== "string") return false;
  if (t.info.submission.trim() !== "") return false;
  const last = events.findLast((e) => e.kind === "tool_call");
  return /\bgit\s+diff\b/.test(last?.command ?? "");
}

/** The task inside the first user message, cut out of the instance template around `{{task}}`. */
export function taskOf(message: string, template: string | null | undefined): string {
  const text = message.trim();
  if (!template) return text;
  const at = template.indexOf("{{task}}");
  if (at === -1) return text;
  const prefix = template.slice(0, at).trim();
  if (/\{\{|\{%/.test(prefix) || !text.startsWith(prefix)) return text;
  let rest = template.slice(at + "{{task}}".length);
  const nextVar = rest.search(/\{\{|\{%/);
  if (nextVar !== -1) rest = rest.slice(0, nextVar);
  const stop = rest.trim().split("\n")[0] ?? "";
  const body = text.slice(prefix.length);
  const end = stop ? body.indexOf(stop) : body.length;
  const task = (end === -1 ? body : body.slice(0, end)).trim();
  return task || text;
}

function verdict(entry: ReportEntry, cap: number): string {
  const lines = [`resolved: ${entry.resolved}`];
  if (entry.patch_successfully_applied === false) lines.push("patch not applied");
  lines.push(...failingLines(entry));
  return capString(lines.join("\n"), cap);
}

async function* readMini(path: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  if (REPORT_HEAD.test(peek(path, 4096).trimStart())) {
    // a report is read with its trajectory; detect only claims one that has a trajectory
    return;
  }
  const loaded = await readJsonAs(
    path,
    MiniTrajectory,
    "a mini-SWE-agent trajectory (info, messages[])",
  );
  if (!loaded.ok) {
    yield { type: "error", error: loaded.error };
    return;
  }
  const t = loaded.value;
  const instance = instanceOf(path, t);
  const log = new EventLog(options.outputCap);
  const usage: AttemptInput["tokens"][] = [];
  let taskText = "";
  let pending: string | undefined;
  // the refusal answering a reply whose blocks were recorded as refused calls: their result
  let skip = -1;
  let n = 0;
  for (const [at, m] of t.messages.entries()) {
    if (at === skip) continue;
    const text = partsText(m.content ?? "");
    if (m.role === "system") log.text("message", "system", text);
    else if (m.role === "assistant") {
      const u = m.extra?.response?.usage;
      if (u)
        usage.push(
          normTokens({
            input: u.prompt_tokens,
            output: u.completion_tokens,
            cached: u.prompt_tokens_details?.cached_tokens,
            reasoning: u.completion_tokens_details?.reasoning_tokens,
            inputIncludesCache: true,
          }),
        );
      const calls = toolCalls(m);
      if (calls.length) {
        // tool-calling mode: each call answered by a `tool` message naming its id
        log.text("message", "agent", text.trim());
        for (const c of calls) log.call({ tool: c.tool, args: c.args, callId: c.id });
        pending = undefined;
        continue;
      }
      const action = bashAction(text);
      const thought = action ? text.slice(0, action.start) + text.slice(action.end) : text;
      log.text("message", "agent", thought.trim());
      if (action) {
        pending = `call-${n++}`;
        log.call({ tool: "bash", args: { command: action.command }, callId: pending });
        continue;
      }
      pending = undefined;
      const following = t.messages[at + 1];
      const refusal = following?.role === "user" ? partsText(following.content ?? "") : undefined;
      const refused = refusedBlocks(text, refusal);
      for (const b of refused) {
        const id = `call-${n++}`;
        log.call({ tool: "bash", args: { command: b.command }, callId: id });
        log.result({ output: observation(refusal ?? "").output, callId: id, isError: true });
      }
      if (refused.length) skip = at + 1;
    } else if (m.role === "tool" && m.tool_call_id) {
      const o = observation(text);
      log.result({
        output: o.output,
        callId: m.tool_call_id,
        exitCode: o.exitCode,
        isError: o.timedOut || o.refused ? true : undefined,
      });
    } else if (m.role === "exit") {
      // the harness's own end marker (tool-calling mode): the status is in `info`, no event
    } else if (!taskText) {
      taskText = taskOf(text, t.info.config?.agent?.instance_template);
      log.text("prompt", "user", text);
    } else if (pending) {
      const o = observation(text);
      log.result({
        output: o.output,
        callId: pending,
        exitCode: o.exitCode,
        isError: o.timedOut || o.refused ? true : undefined,
      });
      pending = undefined;
    } else log.text("message", "system", text);
  }
  const status = t.info.exit_status ?? undefined;
  // the submission is what the last call printed after the marker: its output, where the
  // trajectory kept none (the harness ends the run on that call)
  const lastCall = log.events.findLast((e) => e.kind === "tool_call");
  if (
    status === "Submitted" &&
    typeof t.info.submission === "string" &&
    lastCall?.callId &&
    !log.events.some((e) => e.kind === "tool_result" && e.callId === lastCall.callId)
  )
    log.result({ output: t.info.submission, callId: lastCall.callId, exitCode: 0 });
  if (status === "Submitted") log.stop();
  const reportFile = reportOf(path, t);
  let entry: ReportEntry | undefined;
  if (reportFile) {
    const r = await readJsonAs(reportFile, Report, "a SWE-bench report (resolved, tests_status)");
    if (!r.ok) yield { type: "error", error: r.error };
    else {
      const v = r.value as ReportEntry | Record<string, ReportEntry>;
      entry =
        typeof (v as ReportEntry).resolved === "boolean"
          ? (v as ReportEntry)
          : (v as Record<string, ReportEntry>)[instance];
    }
  }
  // no report of its own: the run summary the SWE-bench harness wrote beside the run
  // (`<model>.<run_id>.json`: resolved_ids, unresolved_ids, error_ids, …), read as SWE-agent's
  const summary = entry ? undefined : await submissionVerdict(path, instance, options.outputCap);
  for (const error of summary?.errors ?? []) yield { type: "error", error };
  const listed = summary?.resolved !== undefined ? summary : undefined;
  // no report, and the run submitted an empty diff: nothing was graded, the patch is empty
  const empty = !entry && !listed && emptyDiffSubmission(t, log.events);
  // no report because the grader could not apply the patch
  const unapplied = !entry && !listed && !empty ? patchNotApplied(path, t) : undefined;
  // the instance's own report decides first, then the run summary
  const resolved = entry ? entry.resolved : listed?.resolved;
  const attempt: AttemptInput = {
    id: attemptId("mini-swe-agent", `${instance}\u0000${path}`, instance),
    source: { format: "mini-swe-agent", path },
    taskId: instance,
    taskText,
    agent: "mini-swe-agent",
    model: t.info.config?.model?.model_name ?? undefined,
    outcome:
      resolved !== undefined
        ? resolved
          ? "pass"
          : "fail"
        : empty || unapplied
          ? "fail"
          : "unknown",
    reward: resolved !== undefined ? (resolved ? 1 : 0) : empty || unapplied ? 0 : null,
    exception:
      status && status !== "Submitted"
        ? { type: status, message: "mini-SWE-agent exit status" }
        : undefined,
    costUsd: t.info.model_stats?.instance_cost ?? undefined,
    tokens: addTokens(usage),
    verifierOutput: entry
      ? verdict(entry, options.outputCap)
      : listed
        ? listed.verifierOutput
        : empty
          ? "the submitted patch is empty: the last call's git diff printed nothing, so no change was graded (an empty patch does not resolve the instance)"
          : unapplied
            ? capString(unapplied.text, options.outputCap)
            : undefined,
    verifierSource:
      reportFile && entry
        ? { file: reportFile }
        : listed
          ? listed.verifierSource
          : unapplied
            ? { file: unapplied.file }
            : undefined,
    verifierTests:
      reportFile && entry ? reportTestsWithOutput(entry, reportFile) : listed?.verifierTests,
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

export const miniSweAgentImporter: Importer = {
  format: "mini-swe-agent",
  detect: (path, head, isDirectory) => {
    if (isDirectory) return false;
    if (isMiniTrajectory(path, head)) return true;
    // a SWE-bench report.json is claimed (and read with its trajectory) when one pairs it
    return (
      basename(path) === "report.json" &&
      REPORT_HEAD.test(head.trimStart()) &&
      hasPairedTrajectory(path)
    );
  },
  read: (path, options) => readMini(path, options),
  outsideStamp: miniOutsideStamp,
};
