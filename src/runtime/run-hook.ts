import { join } from "node:path";
import type * as Vm from "node:vm";
import { builtin } from "../core/builtin.js";
import type { HookLogEntry } from "../core/hook-log.js";
import { type ExitStatus, exitStatus } from "../core/model/exit-status.js";
import { BudgetExceeded, withPatternBudget } from "../core/policy/budget.js";
import { initState, observeAll, step, withTaskText } from "../core/policy/evaluator.js";
import type { CompiledPolicy, SessionState, StepResult } from "../core/policy/types.js";
import { workspacePaths } from "../core/workspace/paths.js";
import { HOOK_JSON_BOUNDS } from "./bounded-json.js";
import { rolloutExitCode } from "./codex-exit.js";
import { checkHookInput } from "./guard.js";
import type { HookInput } from "./hook-events.js";
import { logCommand, openHookLog, writeHookLog } from "./hook-log-writer.js";
import { LockBusyError, LockCompromisedError, LockTimeoutError, withFileLock } from "./lock.js";
import { commandOf, detectHarness, toEvent } from "./map-event.js";
import { loadPortfolio } from "./portfolio.js";
import { denyOutput, type HookOutput, toHookOutput } from "./respond.js";
import {
  ensureDir,
  type PreparedWrite,
  prepareState,
  readState,
  sessionFile,
  writeState,
} from "./state-store.js";
import { namesInHead, STDIN_CAP, type StdinRead } from "./stdin.js";
import { firstPromptScan, TRANSCRIPT_SCAN_CAP } from "./transcript.js";
import { verifiedRecordDir } from "./verified-record.js";

export { STDIN_CAP, type StdinRead };

/**
 * The longest command rules see whole: all of it (patterns run in linear time and the command
 * is never cut), up to what stdin may carry. Under --fail-closed a longer PreToolUse is denied.
 */
export const SEEN = STDIN_CAP;

/** A string of an oversized event longer than this keeps its first and last halves. */
const BOUNDED_KEEP = HOOK_JSON_BOUNDS.keep;

/** Longest session id / tool name kept in a log entry. */
export const LOG_ID_CAP = 200;

export interface HookOptions {
  portfolio?: string;
  stateDir: string;
  logFile: string;
  failClosed: boolean;
  /** Observe mode (`--observe`): every policy is evaluated and logged, nothing is answered. */
  observe?: boolean;
  /**
   * Supplies the compiled policies instead of `loadPortfolio(portfolio)` (the self-contained
   * payload hook: a hash-checked compiled portfolio). A throw is a fault.
   */
  loadPolicies?: () => CompiledPolicy[];
  /** The hook's own command line was wrong: every event is a fault until it is fixed. */
  usageError?: string;
  env: NodeJS.ProcessEnv;
  /** When this hook call began (ms since the epoch); default: when the process started. */
  startedAt?: number;
  /**
   * Whether the call may wait for its session lock (default). The resident evaluator does
   * not: a held lock ends the call with LockBusyError before anything is written or logged,
   * and the caller answers it in its own process, where waiting, signals and take-over are
   * the one-shot call's.
   */
  lockWait?: boolean;
  /**
   * Resolves once the answer has reached the caller (the resident evaluator). When given, and
   * not under --fail-closed, the state's temp file is written before the answer and put in
   * place after it, with the lock's release and the log line: what can fail for want of room
   * or rights still fails before the answer and is answered as in a one-shot call; only a
   * failed rename (the temp file written, beside the state) is known after, and logged.
   */
  answered?: Promise<void>;
}

/**
 * How long after it starts a hook may wait for its session lock (FIRE_HOOK_LOCK_WAIT_MS
 * overrides): well within the 30 s `fire hook install` gives the client (HOOK_TIMEOUT_S),
 * after which the client kills the hook and goes on without its answer. A burst of events on
 * one session waits its turn; an event still waiting at this point answers from the last
 * saved state without its update (logged: it could not take the lock), and a tool call the
 * rules allowed is denied under --fail-closed.
 */
export const HOOK_LOCK_WAIT_MS = 20_000;

export interface HookAnswer {
  /** What to print (null: nothing). The hook always exits 0. */
  output: HookOutput;
  entry: HookLogEntry;
  /** With `answered`: resolves when the state is in place, the lock released and the line logged. */
  settled?: Promise<void>;
}

/** A fault: the hook answers nothing (or denies a tool call under --fail-closed). */
class Fault extends Error {}

/**
 * Handles one hook call end to end; never throws (every fault becomes a logged answer), but
 * for LockBusyError when `lockWait` is false.
 */
export async function runHook(stdin: StdinRead, opts: HookOptions): Promise<HookAnswer> {
  const t0 = process.hrtime.bigint();
  const base: HookLogEntry = {
    ts: new Date().toISOString(),
    session: "",
    harness: "unknown",
    event: "",
    eventIndex: null,
    firings: [],
    verdict: { action: "allow" },
    tracked: [],
  };
  let eventName: string | undefined;
  try {
    if ("error" in stdin) {
      // Oversized, over-deep or unfinished: the event name and tool still decide the answer
      // and the log. Only the top-level `hook_event_name` (read by the bounded reader) is
      // trusted; without it, any event counts as a tool call (a nested "Stop" decides nothing).
      const top = isRecord(stdin.bounded?.value) ? stdin.bounded.value : undefined;
      const named = typeof top?.hook_event_name === "string" ? top.hook_event_name : undefined;
      const { events, tools } = stdin.head !== undefined ? namesInHead(stdin.head) : NO_NAMES;
      eventName = named ?? "PreToolUse";
      base.event = capId(named ?? events[0] ?? "");
      const tool = typeof top?.tool_name === "string" ? top.tool_name : tools[0];
      if (tool !== undefined) base.tool = capId(tool);
    }
    const input = await readInput(stdin, (name) => {
      eventName = name;
    });
    const harness = detectHarness(input, opts.env);
    Object.assign(base, {
      session: capId(input.session_id),
      harness,
      event: capId(input.hook_event_name),
    });
    if (input.agent_id !== undefined) base.agent = capId(input.agent_id);
    if (input.tool_name !== undefined) base.tool = capId(input.tool_name);
    const raw = commandOf(input.tool_input, input.tool_name);
    const command = logCommand(raw);
    if (command !== undefined) base.command = command;
    if ("error" in stdin) base.note = boundedNote(stdin);
    if (opts.usageError) throw new Fault(opts.usageError);
    if (opts.failClosed && input.hook_event_name === "PreToolUse" && (raw?.length ?? 0) > SEEN)
      throw new Fault(
        `the command has ${raw?.length} characters; rules match only ${SEEN} of them (unmatchable)`,
      );
    const result = await evaluate(input, opts, (why) => {
      base.note = base.note === undefined ? why : `${base.note}; ${why}`;
    });
    let output = result ? toHookOutput(input.hook_event_name, result.verdict) : null;
    if (result?.observed)
      base.observed = {
        verdict: result.observed,
        output: toHookOutput(input.hook_event_name, result.observed),
      };
    let error: string | undefined;
    // The event's bytes were not UTF-8 (no client sends that): the rules saw the text with
    // U+FFFD for the bad bytes, so a deny still denies; but the command the client runs is
    // not the one the rules read, so it is a fault like a lost state write.
    const badText = "invalidUtf8" in stdin && stdin.invalidUtf8 ? INVALID_UTF8 : undefined;
    const degraded = [result?.stateError, badText].filter((x) => x !== undefined);
    if (degraded.length > 0) {
      // The verdict was answered from what could be read (a lost state write: the state is
      // not kept): a fault (reported on stderr and logged), which --fail-closed turns into a
      // deny of a tool call the rules allowed.
      error = degraded.join("; ");
      process.stderr.write(`fire hook: ${error}\n`);
      const denied = result?.verdict.action === "deny";
      if (opts.failClosed && eventName === "PreToolUse" && !denied) output = failClosedDeny(error);
    }
    const entry = finish(base, t0, output, result, error);
    const persisted = result?.persisted;
    if (persisted === undefined) {
      log(opts.logFile, entry);
      return { output, entry };
    }
    // the log is opened now (a refused log is reported with the answer, as one-shot) and its
    // line written once the state is in place, with a rename's error if there was one
    const fd = openLog(opts.logFile);
    const settled = persisted.then((late) => {
      if (late !== undefined)
        entry.error = entry.error === undefined ? late : `${entry.error}; ${late}`;
      if (fd !== undefined) writeLog(opts.logFile, fd, entry);
    });
    return { output, entry, settled };
  } catch (err) {
    if (err instanceof LockBusyError) throw err; // nothing written or logged: the caller answers
    const message = err instanceof Fault ? err.message : `internal error: ${errText(err)}`;
    const output = opts.failClosed && eventName === "PreToolUse" ? failClosedDeny(message) : null;
    const entry = finish(base, t0, output, undefined, message);
    log(opts.logFile, entry);
    return { output, entry };
  }
}

/**
 * `evaluate`'s locked step for the resident evaluator: the event is evaluated and its state
 * written to a temp file under the session lock, the result handed out at once, and the lock
 * held until `answered` resolves, then the state renamed into place and the lock released.
 */
function evaluateThenPersist(
  file: string,
  run: (state: SessionState) => Evaluated,
  answered: Promise<void>,
  lockOpts: { deadline: number; wait: boolean },
): Promise<Evaluated> {
  return new Promise<Evaluated>((resolveResult, reject) => {
    let handOut: ((late: string | undefined) => void) | undefined;
    const persisted = new Promise<string | undefined>((r) => {
      handOut = r;
    });
    withFileLock(
      file,
      async (guard) => {
        const result = run(readState(file) ?? initState());
        guard.confirm(); // never write over a lock that was taken over meanwhile
        let prepared: PreparedWrite | undefined;
        try {
          prepared = prepareState(file, result.state);
        } catch (err) {
          result.stateError = `state not saved (${file}): ${errText(err)}`;
        }
        resolveResult({ ...result, persisted });
        await answered;
        if (prepared === undefined) return undefined;
        try {
          guard.confirm();
          prepared.commit();
          return undefined;
        } catch (err) {
          prepared.discard(); // a lock taken over meanwhile: its holder's state stands
          return `state not saved (${file}): ${errText(err)}`;
        }
      },
      lockOpts,
    ).then(
      (late) => handOut?.(late),
      (err) => {
        reject(err); // before the result: handled as the one-shot call's lock errors
        handOut?.(`state: ${errText(err)}`);
      },
    );
  });
}

const INVALID_UTF8 =
  "stdin is not valid UTF-8: the event was evaluated with U+FFFD for its invalid bytes";

const NO_NAMES = { events: [] as string[], tools: [] as string[] };

function failClosedDeny(message: string): HookOutput {
  return denyOutput(
    `fire hook failed (${message}); --fail-closed denies tool calls until it is fixed.`,
  );
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** How an oversized event was read (logged beside its answer). */
function boundedNote(stdin: Extract<StdinRead, { error: string }>): string {
  const cut = stdin.bounded?.cut ?? 0;
  return `${stdin.error}: read bounded, ${cut} string(s) kept as their first and last ${BOUNDED_KEEP / 2} bytes`;
}

/**
 * The event to evaluate. An oversized event that the bounded reader read whole is evaluated
 * from that reading (its long strings cut to head and tail: a >4 MiB first prompt still
 * decides eligibility), except a tool call: its command must be seen whole, so an oversized
 * PreToolUse stays a fault (denied under --fail-closed).
 */
async function readInput(stdin: StdinRead, seen: (name: string) => void): Promise<HookInput> {
  if ("error" in stdin) {
    const b = stdin.bounded;
    const input = b?.complete ? checkHookInput(b.value) : undefined;
    if (input && input.hook_event_name !== "PreToolUse") return input;
    throw new Fault(stdin.error);
  }
  if (stdin.text.length > STDIN_CAP) throw new Fault(`stdin exceeds ${STDIN_CAP} bytes`);
  let value: unknown;
  try {
    value = "value" in stdin ? stdin.value : JSON.parse(stdin.text);
  } catch {
    seen("PreToolUse"); // no event name to read: counts as a tool call (as an oversized one)
    throw new Fault(stdin.text.trim() ? "stdin is not valid JSON" : "stdin is empty");
  }
  const name = (value as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof name === "string") seen(name);
  const input = checkHookInput(value);
  if (input) return input;
  const { explainHookInput } = await import("./hook-input.js");
  throw new Fault(`bad hook event: ${explainHookInput(value) ?? "rejected"}`);
}

type Evaluated = StepResult & {
  index: number;
  status?: ExitStatus;
  stateError?: string;
  policies: string[];
  /** With `answered`: resolves (to a state error found after the answer, if any) once settled. */
  persisted?: Promise<string | undefined>;
};

/** Errors of writing the state folder (full, read-only, not a folder): the verdict still holds. */
const WRITE_ERRORS = new Set([
  "EROFS",
  "EACCES",
  "EPERM",
  "ENOSPC",
  "EDQUOT",
  "ENOTDIR",
  "EIO",
  "ENOENT",
  "ELOOP",
  "EEXIST",
  "EFBIG",
  "EMLINK",
  "ENAMETOOLONG",
  "ESPECIALFS",
]);

/**
 * Runs the evaluator on the session's state under the session lock; undefined for events
 * it does not see (SessionStart / SessionEnd). When the state folder cannot be written
 * (full disk, read-only, a file in its path) the event is still evaluated — from the state
 * that can be read, else a fresh one — and `stateError` says the state was not kept: a
 * rule's deny is never lost to a write.
 */
async function evaluate(
  input: HookInput,
  opts: HookOptions,
  note: (why: string) => void,
): Promise<Evaluated | undefined> {
  const ev = toEvent(input, rolloutExitCode);
  if (!ev) return undefined;
  if (!opts.portfolio && !opts.loadPolicies)
    throw new Fault(
      "no portfolio: pass --portfolio FILE|DIR or freeze one into <workspace>/portfolios/",
    );
  let policies: CompiledPolicy[];
  try {
    policies = opts.loadPolicies
      ? opts.loadPolicies()
      : await loadPortfolio(
          opts.portfolio as string,
          opts.stateDir,
          verifiedRecordDir(opts.env),
          note,
        );
  } catch (err) {
    throw new Fault(errText(err));
  }
  if (opts.observe) policies = observeAll(policies);
  const keys = policies.map((p) => p.key);
  // A sub-agent is its own attempt (as import makes its transcript one): its own state.
  const file = sessionFile(opts.stateDir, stateKey(input));
  const transcript = transcriptOf(input);
  const run = (state0: SessionState): Evaluated => {
    let state = state0;
    // First sight of a session that is already under way (even at a later prompt), or of
    // a sub-agent: its task is its transcript's first prompt (looked up once, bounded).
    if (state.step === 0 && state.taskText === undefined && transcript) {
      const found = firstPromptScan(transcript);
      if (found.prompt !== undefined) state = withTaskText(state, found.prompt);
      else if (found.cut && opts.failClosed && ev.kind === "tool_call")
        throw new Fault(
          `no task text within the first ${TRANSCRIPT_SCAN_CAP} bytes of the transcript: eligibility is unknown`,
        );
    }
    const index = state.step;
    // A live event happens now: its timestamp feeds `elapsed` conditions (replay has the trace's).
    const now = Date.now();
    if (state.startedAt !== undefined && state.startedAt > now + SKEW_MS) {
      // a start in the future (the clock was set back, or a planted state) would keep
      // `elapsed` at 0 until the clock caught up: the session is counted from now
      const at = new Date(state.startedAt);
      note(
        `session start ${Number.isNaN(at.getTime()) ? state.startedAt : at.toISOString()} is in the future: counted from now`,
      );
      state = { ...state, startedAt: now };
    }
    const st = state;
    const go = () => step(policies, st, { ...ev, index, ts: ev.ts ?? new Date(now).toISOString() });
    const ms = budgetMs(opts.env);
    const seen =
      (ev.command?.length ?? 0) +
      (ev.input?.length ?? 0) +
      (ev.output?.length ?? 0) +
      (st.taskText === undefined && ev.kind === "prompt" ? (ev.input?.length ?? 0) : 0);
    // A watchdog thread costs ms on a loaded machine: on short text one pattern test is
    // short too, and the budget is checked between tests.
    const result =
      seen > INTERRUPT_FROM ? withInterruptingBudget(ms, go) : withPatternBudget(ms, go);
    return ev.kind === "tool_result"
      ? { ...result, index, policies: keys, status: exitStatus(ev) }
      : { ...result, index, policies: keys };
  };
  let stateError: string;
  try {
    ensureDir(opts.stateDir);
    // the process start (performance.timeOrigin would load perf_hooks on every event)
    const startedAt = opts.startedAt ?? Date.now() - process.uptime() * 1000;
    const answered = opts.failClosed ? undefined : opts.answered;
    if (answered !== undefined)
      return await evaluateThenPersist(file, run, answered, {
        deadline: startedAt + lockWaitMs(opts.env),
        wait: opts.lockWait ?? true,
      });
    return await withFileLock(
      file,
      (guard) => {
        const result = run(readState(file) ?? initState());
        guard.confirm(); // never write over a lock that was taken over meanwhile
        try {
          writeState(file, result.state);
        } catch (err) {
          result.stateError = `state not saved (${file}): ${errText(err)}`;
        }
        return result;
      },
      { deadline: startedAt + lockWaitMs(opts.env), wait: opts.lockWait ?? true },
    );
  } catch (err) {
    if (err instanceof Fault || err instanceof LockBusyError) throw err;
    if (err instanceof LockTimeoutError)
      stateError = `${err.message}: answered from the last saved state, this event's update not applied`;
    else {
      if (err instanceof LockCompromisedError) throw new Fault(err.message);
      if (err instanceof BudgetExceeded)
        throw new Fault(`${err.message}: the event fails open and its state is unchanged`);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === undefined || !WRITE_ERRORS.has(code)) throw new Fault(`state: ${errText(err)}`);
      stateError = `state directory unusable, state not saved: ${errText(err)}`;
    }
  }
  let state: SessionState;
  try {
    state = readState(file) ?? initState();
  } catch {
    state = initState();
  }
  try {
    return { ...run(state), stateError };
  } catch (err) {
    if (err instanceof BudgetExceeded)
      throw new Fault(`${err.message}: the event fails open and its state is unchanged`);
    throw err;
  }
}

/** A session start this far ahead of the hook's clock is clock skew (see `run`). */
const SKEW_MS = 60_000;

/**
 * Events whose pattern-visible text (command + input + output) exceeds this many characters
 * run under the interrupting budget; shorter ones under the between-tests budget only (the
 * slowest admitted pattern we know costs ~0.5 ms a character: ~2 s on 4 KiB).
 */
export const INTERRUPT_FROM = 4096;

let budgetScript: Vm.Script | undefined;

/**
 * Runs `fn` (the pattern tests of one event) under a budget that INTERRUPTS: the pattern
 * budget is checked between tests (budget.ts), and V8 stops a single long test itself
 * (`vm` timeout: a watchdog thread terminates the running match), so no input size or
 * pattern can hold the hook past the budget; both throw BudgetExceeded.
 */
export function withInterruptingBudget<T>(ms: number, fn: () => T): T {
  const g = globalThis as { __fireBudgeted?: () => void };
  let out: T | undefined;
  g.__fireBudgeted = () => {
    out = withPatternBudget(ms, fn);
  };
  try {
    budgetScript ??= new (builtin<typeof Vm>("node:vm").Script)("__fireBudgeted()");
    budgetScript.runInThisContext({ timeout: Math.max(1, Math.ceil(ms)) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_SCRIPT_EXECUTION_TIMEOUT")
      throw new BudgetExceeded(ms);
    throw err;
  } finally {
    delete g.__fireBudgeted;
  }
  return out as T;
}

/** Default wall-clock budget for one event's pattern tests; FIRE_HOOK_BUDGET_MS overrides. */
export const HOOK_BUDGET_MS = 5_000;

function lockWaitMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.FIRE_HOOK_LOCK_WAIT_MS);
  return Number.isFinite(v) && v > 0 ? v : HOOK_LOCK_WAIT_MS;
}

function budgetMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.FIRE_HOOK_BUDGET_MS);
  return Number.isFinite(v) && v > 0 ? v : HOOK_BUDGET_MS;
}

/** The state file's key: the session, or `<session>--agent-<id>` for a Claude sub-agent. */
export function stateKey(input: HookInput): string {
  return input.agent_id ? `${input.session_id}--agent-${input.agent_id}` : input.session_id;
}

/**
 * The transcript holding this event's task: the session's, or for a Claude sub-agent its own
 * (`agent_transcript_path`, else `<session transcript dir>/<session>/subagents/agent-<id>.jsonl`,
 * where Claude Code 2.1 writes it).
 */
export function transcriptOf(input: HookInput): string | undefined {
  const main = input.transcript_path ?? undefined;
  if (!input.agent_id) return main;
  if (input.agent_transcript_path) return input.agent_transcript_path;
  if (!main?.endsWith(".jsonl")) return undefined;
  return join(main.slice(0, -".jsonl".length), "subagents", `agent-${input.agent_id}.jsonl`);
}

/** An id as the log keeps it: at most LOG_ID_CAP characters, with the full length noted. */
function capId(s: string): string {
  return s.length <= LOG_ID_CAP ? s : `${s.slice(0, LOG_ID_CAP)}…(${s.length} chars)`;
}

function finish(
  base: HookLogEntry,
  t0: bigint,
  output: HookOutput,
  result: Evaluated | undefined,
  error?: string,
): HookLogEntry {
  const entry: HookLogEntry = { ...base, output };
  if (result) {
    entry.eventIndex = result.index;
    entry.firings = result.firings;
    entry.verdict = result.verdict;
    entry.tracked = result.tracked;
    if (result.status) entry.status = result.status;
    entry.policies = result.policies;
    entry.eligible = Object.entries(result.state.policies)
      .filter(([, ps]) => ps.eligible === true)
      .map(([k]) => k);
    if (result.followed.length > 0) entry.followed = result.followed;
    if (result.ignored.length > 0) entry.ignored = result.ignored;
  }
  if (error !== undefined) entry.error = error;
  entry.ms = Number((process.hrtime.bigint() - t0) / 10_000n) / 100;
  return entry;
}

function log(file: string, entry: HookLogEntry): void {
  const fd = openLog(file);
  if (fd !== undefined) writeLog(file, fd, entry);
}

function openLog(file: string): number | undefined {
  try {
    return openHookLog(file);
  } catch (err) {
    logError(file, err);
    return undefined;
  }
}

function writeLog(file: string, fd: number, entry: HookLogEntry): void {
  try {
    writeHookLog(fd, entry);
  } catch (err) {
    logError(file, err);
  }
}

function logError(file: string, err: unknown): void {
  process.stderr.write(`fire hook: cannot write the hook log ${file}: ${errText(err)}\n`);
}

function errText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  const msg = err instanceof Error ? err.message : String(err);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
}

export const defaultLogFile = (workspace: string): string => workspacePaths(workspace).hookLog;
export const defaultStateDir = (workspace: string): string => workspacePaths(workspace).state;
