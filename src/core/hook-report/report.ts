import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError } from "../errors.js";
import { type HookLogEntry, readHookLog } from "../hook-log.js";
import { decideOutcome, harborException, harborReward } from "../ingest/harbor-outcome.js";
import { HarborTrialResult } from "../ingest/harbor-schema.js";
import type { Outcome } from "../model/attempt.js";
import type { CompiledPolicy } from "../policy/types.js";

/**
 * `fire hook report`: what the live hook did, from the hook logs of one or many projects or
 * containers. Per rule and portfolio version: events, eligible sessions, firings (enforced
 * and observed side by side), firings outside eligibility, instructions followed or ignored
 * (the evaluator logs when a policy's behaviour marker holds after a firing, and when the
 * rule's condition recurs — or the agent stops — while its instruction is still pending),
 * denies, escalations, errors, fail-opens, latency; a funnel per rule; dormant and noisy
 * rules flagged. Pure over the files it reads; prints nothing.
 */

/** A file is a hook log when its name says so (`hook-log.jsonl`, Harbor's `fire-hook-log.jsonl`). */
export const HOOK_LOG_NAME = /hook-log[^/]*\.jsonl$/;
/** Folders never searched for logs. */
const SKIP_DIRS = new Set(["node_modules", ".git"]);

/** When a rule is flagged (thresholds in one place; the CLI can override them). */
export interface ReportThresholds {
  /** Dormant: no firing in at least this many eligible sessions (or sessions, eligibility unknown). */
  dormantSessions: number;
  /** Noisy: at least this many firings per session it fired in, on average … */
  noisyPerSession: number;
  /** … or at least this share of its resolved instructions ignored … */
  noisyIgnoredShare: number;
  /** … counted only from this many firings on. */
  noisyMinFirings: number;
}

export const REPORT_THRESHOLDS: ReportThresholds = {
  dormantSessions: 10,
  noisyPerSession: 3,
  noisyIgnoredShare: 0.8,
  noisyMinFirings: 5,
};

export interface Latency {
  /** Events with a measured time. */
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** Counts of one mode (enforced: answered; observed: logged only). */
export interface ModeCounts {
  firings: number;
  denies: number;
  /** Escalated firings (denies or blocked stops of the ladder). */
  escalations: number;
  blockedStops: number;
}

export interface FunnelStage {
  stage: "eligible" | "fired" | "followed" | "passed";
  /** null: not recorded (eligibility not logged; no verifier outcome beside the logs). */
  sessions: number | null;
}

/**
 * One session a rule fired in, linked to where it is: the log file and session id, and the
 * verifier's outcome when the log lies in a Harbor trial folder (`<trial>/agent/…`, its
 * `result.json` read); unknown elsewhere (a developer's project has no verifier).
 */
export interface SessionLink {
  file: string;
  session: string;
  /** Claude Code sub-agent id, when the firings were the sub-agent's. */
  agent?: string;
  firings: number;
  /** Line (1-based) of the session's first firing of the rule in the file. */
  line: number;
  outcome: Outcome;
}

/** Outcomes of the sessions a rule fired in. */
export interface OutcomeCounts {
  pass: number;
  fail: number;
  /** Timeouts and errors of the trial. */
  other: number;
  unknown: number;
}

export interface RuleRow {
  /** `id@version` */
  policy: string;
  policyId: string;
  version: number;
  rule: string;
  point: string;
  /** The rule's mode(s) as seen in the logs (or, never fired, as the portfolio says). */
  modes: ("enforce" | "observe")[];
  /** Events the hook evaluated with this policy version loaded. */
  events: number;
  /** Sessions in which it was loaded. */
  sessions: number;
  /** Sessions in which it was eligible (null: the logs do not record eligibility). */
  eligibleSessions: number | null;
  firedSessions: number;
  enforced: ModeCounts;
  observed: ModeCounts;
  /** Firings in sessions whose logged eligibility does not include the policy. */
  outsideEligibility: number;
  /** Firings whose behaviour showed later in the session. */
  followed: number;
  /** Firings not followed after the rule's condition recurred or the agent stopped. */
  ignored: number;
  /** Firings with no later sign either way (the session ended first). */
  noSign: number;
  /** Occasions at which the rule's instruction was pending (each ignored once more). */
  ignoredOccasions: number;
  errors: number;
  failOpens: number;
  latency: Latency;
  funnel: FunnelStage[];
  /** The sessions it fired in, each linked to its log and outcome (in file order). */
  fired: SessionLink[];
  /** Their outcomes counted (fired sessions whose trial passed, failed, …). */
  outcomes: OutcomeCounts;
  flags: ("dormant" | "noisy")[];
  /** Why each flag was raised. */
  why: string[];
}

export interface PortfolioVersion {
  /** The policies (`id@version`) evaluated together, sorted. */
  policies: string[];
  events: number;
  sessions: number;
}

export interface HookReport {
  files: string[];
  /** Good log lines read. */
  lines: number;
  /** Bad lines (file:line: reason); the other lines still count. */
  errors: InputError[];
  sessions: number;
  /** Events the evaluator saw (SessionStart/End and unreadable events excluded). */
  events: number;
  /** Hook calls that faulted. */
  faults: number;
  /** Faults answered with nothing (the agent went on unchecked). */
  failOpens: number;
  /** Faults answered with a deny (--fail-closed). */
  failClosed: number;
  /** Hook calls whose answer was changed by observe mode (something would have been said). */
  observedAnswers: number;
  latency: Latency;
  portfolios: PortfolioVersion[];
  rules: RuleRow[];
}

export interface ReportOptions {
  /** The portfolio(s) the logs come from: their rules are listed even when they never fired. */
  policies?: readonly CompiledPolicy[];
  thresholds?: Partial<ReportThresholds>;
  /** A trial's reward at or above this passes (fire.config.json `passThreshold`; default 1). */
  passThreshold?: number;
  /** The trial outcome of a log file (default: its Harbor trial's `result.json`, else unknown). */
  outcomeOf?: (file: string) => Outcome;
}

/** The Harbor trial folder a hook log lies in (`<trial>/agent/`, `<trial>/steps/<s>/agent/`). */
export function trialOfLog(file: string): string | undefined {
  const dir = dirname(file);
  if (basename(dir) !== "agent") return undefined;
  let trial = dirname(dir);
  if (basename(dirname(trial)) === "steps") trial = dirname(dirname(trial));
  return trial;
}

/**
 * The verifier's outcome of the trial a log lies in: its `result.json` through the Harbor
 * schema, the reward against the pass threshold; unknown when there is none or it is unreadable.
 */
export function trialOutcome(file: string, passThreshold = 1): Outcome {
  const trial = trialOfLog(file);
  if (!trial) return "unknown";
  let raw: unknown;
  try {
    const f = join(trial, "result.json");
    if (!lstatSync(f).isFile()) return "unknown";
    raw = JSON.parse(readFileSync(f, "utf8"));
  } catch {
    return "unknown";
  }
  const r = HarborTrialResult.safeParse(raw);
  if (!r.success) return "unknown";
  return decideOutcome(harborReward(r.data).reward, harborException(r.data), passThreshold);
}

/** Every hook log under the given files and folders (folders searched recursively). */
export function findHookLogs(paths: readonly string[]): { files: string[]; errors: InputError[] } {
  const files: string[] = [];
  const errors: InputError[] = [];
  const walk = (dir: string) => {
    let names: import("node:fs").Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      errors.push(new InputError(dir, undefined, `cannot read: ${(err as Error).message}`));
      return;
    }
    for (const d of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (d.isDirectory() && !SKIP_DIRS.has(d.name)) walk(join(dir, d.name));
      else if (d.isFile() && HOOK_LOG_NAME.test(d.name)) files.push(join(dir, d.name));
    }
  };
  for (const p of paths) {
    let st: import("node:fs").Stats;
    try {
      st = lstatSync(p);
    } catch (err) {
      errors.push(new InputError(p, undefined, `cannot read: ${(err as Error).message}`));
      continue;
    }
    if (st.isDirectory()) walk(p);
    else files.push(p);
  }
  return { files, errors };
}

interface RuleAcc {
  row: RuleRow;
  firedIn: Set<string>;
  followedIn: Set<string>;
  /** Fired sessions by session key (its link). */
  links: Map<string, SessionLink>;
}

interface PolicyAcc {
  events: number;
  sessions: Set<string>;
  eligible: Set<string>;
  /** Whether some entry recorded eligibility for a session that loaded it. */
  eligibilityKnown: boolean;
  errors: number;
  failOpens: number;
  ms: number[];
}

const emptyCounts = (): ModeCounts => ({ firings: 0, denies: 0, escalations: 0, blockedStops: 0 });

/** Reads the logs and builds the report. */
export function hookReport(paths: readonly string[], opts: ReportOptions = {}): HookReport {
  const found = findHookLogs(paths);
  const logs = found.files.map((f) => ({ file: f, ...readHookLog(f) }));
  const report = buildHookReport(logs, opts);
  return { ...report, errors: [...found.errors, ...report.errors] };
}

/** The report over parsed logs (one per file). */
export function buildHookReport(
  logs: readonly {
    file: string;
    entries: readonly HookLogEntry[];
    /** Each entry's line in the file (links to a session point there; else 0). */
    lines?: readonly number[];
    errors: readonly InputError[];
  }[],
  opts: ReportOptions = {},
): HookReport {
  const th = { ...REPORT_THRESHOLDS, ...opts.thresholds };
  const outcomeOf = opts.outcomeOf ?? ((f: string) => trialOutcome(f, opts.passThreshold));
  const policies = new Map<string, PolicyAcc>();
  const rules = new Map<string, RuleAcc>();
  const portfolios = new Map<
    string,
    { policies: string[]; events: number; sessions: Set<string> }
  >();
  const allMs: number[] = [];
  let lines = 0;
  let events = 0;
  let faults = 0;
  let failOpens = 0;
  let failClosed = 0;
  let observedAnswers = 0;
  const sessions = new Set<string>();

  const policyAcc = (key: string): PolicyAcc => {
    let p = policies.get(key);
    if (!p) {
      p = {
        events: 0,
        sessions: new Set(),
        eligible: new Set(),
        eligibilityKnown: false,
        errors: 0,
        failOpens: 0,
        ms: [],
      };
      policies.set(key, p);
    }
    return p;
  };
  const ruleAcc = (key: string, rule: string, point: string): RuleAcc => {
    const rk = `${key}/${rule}`;
    let r = rules.get(rk);
    if (!r) {
      const at = key.lastIndexOf("@");
      r = {
        row: {
          policy: key,
          policyId: key.slice(0, at),
          version: Number(key.slice(at + 1)),
          rule,
          point,
          modes: [],
          events: 0,
          sessions: 0,
          eligibleSessions: null,
          firedSessions: 0,
          enforced: emptyCounts(),
          observed: emptyCounts(),
          outsideEligibility: 0,
          followed: 0,
          ignored: 0,
          noSign: 0,
          ignoredOccasions: 0,
          errors: 0,
          failOpens: 0,
          latency: { n: 0, p50: null, p95: null, p99: null },
          funnel: [],
          fired: [],
          outcomes: { pass: 0, fail: 0, other: 0, unknown: 0 },
          flags: [],
          why: [],
        },
        firedIn: new Set(),
        followedIn: new Set(),
        links: new Map(),
      };
      rules.set(rk, r);
    }
    return r;
  };
  for (const p of opts.policies ?? [])
    for (const r of Object.values(p.rules).flat()) {
      const acc = ruleAcc(p.key, r.id, r.at);
      if (!acc.row.modes.includes(p.mode)) acc.row.modes.push(p.mode);
    }

  for (const log of logs) {
    lines += log.entries.length;
    // Logs written before entries named their portfolio: the policies seen in the file.
    const inferred = new Set<string>();
    for (const e of log.entries) {
      for (const f of e.firings) inferred.add(`${f.policyId}@${f.policyVersion}`);
      for (const t of e.tracked) inferred.add(t.slice(0, t.indexOf("/")));
    }
    const bySession = new Map<string, { entries: HookLogEntry[]; lines: number[] }>();
    for (const [i, e] of log.entries.entries()) {
      const id = `${log.file}\0${e.session}\0${e.agent ?? ""}`;
      const list = bySession.get(id);
      const line = log.lines?.[i] ?? 0;
      if (list) {
        list.entries.push(e);
        list.lines.push(line);
      } else bySession.set(id, { entries: [e], lines: [line] });
    }
    let outcome: Outcome | undefined;
    const outcomeOfFile = () => {
      outcome ??= outcomeOf(log.file);
      return outcome;
    };
    for (const [sid, { entries, lines: lineOf }] of bySession) {
      sessions.add(sid);
      /** Open firings per rule key: whether an ignored occasion came while each was open. */
      const open = new Map<string, boolean[]>();
      let eligibleNow: Set<string> | undefined;
      for (const [ei, e] of entries.entries()) {
        const loaded = e.policies ?? (e.eventIndex === null ? [] : [...inferred]);
        if (e.eventIndex !== null) events++;
        if (e.ms !== undefined) allMs.push(e.ms);
        if (e.error !== undefined) {
          faults++;
          if (e.output) failClosed++;
          else failOpens++;
        }
        if (e.observed && JSON.stringify(e.observed.output) !== JSON.stringify(e.output ?? null))
          observedAnswers++;
        if (e.eligible) eligibleNow = new Set(e.eligible);
        if (e.policies && e.policies.length > 0) {
          const pk = [...e.policies].sort().join(" ");
          let pv = portfolios.get(pk);
          if (!pv) {
            pv = { policies: [...e.policies].sort(), events: 0, sessions: new Set() };
            portfolios.set(pk, pv);
          }
          pv.sessions.add(sid);
          if (e.eventIndex !== null) pv.events++;
        }
        for (const key of loaded) {
          const p = policyAcc(key);
          p.sessions.add(sid);
          if (e.eventIndex !== null) p.events++;
          if (e.ms !== undefined) p.ms.push(e.ms);
          if (e.error !== undefined) {
            p.errors++;
            if (!e.output) p.failOpens++;
          }
          if (e.eligible) {
            p.eligibilityKnown = true;
            if (eligibleNow?.has(key)) p.eligible.add(sid);
          }
        }
        for (const rk of e.ignored ?? []) {
          const acc = rules.get(rk) ?? ruleAccFromKey(ruleAcc, rk);
          acc.row.ignoredOccasions++;
          const o = open.get(rk);
          if (o) o.fill(true);
        }
        for (const rk of e.followed ?? []) {
          const o = open.get(rk);
          if (!o || o.length === 0) continue;
          const acc = rules.get(rk) ?? ruleAccFromKey(ruleAcc, rk);
          acc.row.followed += o.length;
          acc.followedIn.add(sid);
          open.set(rk, []);
        }
        for (const f of e.firings) {
          const key = `${f.policyId}@${f.policyVersion}`;
          const acc = ruleAcc(
            key,
            f.ruleId,
            f.escalated === "block" ? acc0Point(rules, key, f) : f.point,
          );
          const mode = f.mode === "observe" ? "observe" : "enforce";
          if (!acc.row.modes.includes(mode)) acc.row.modes.push(mode);
          const c = mode === "observe" ? acc.row.observed : acc.row.enforced;
          c.firings++;
          if (f.action === "deny") c.denies++;
          if (f.escalated) c.escalations++;
          if (f.escalated === "block") c.blockedStops++;
          acc.firedIn.add(sid);
          const link = acc.links.get(sid);
          if (link) link.firings++;
          else
            acc.links.set(sid, {
              file: log.file,
              session: e.session,
              ...(e.agent ? { agent: e.agent } : {}),
              firings: 1,
              line: lineOf[ei] ?? 0,
              outcome: outcomeOfFile(),
            });
          if (e.eligible && !e.eligible.includes(key)) acc.row.outsideEligibility++;
          const rk = `${key}/${f.ruleId}`;
          const o = open.get(rk);
          if (o) o.push(false);
          else open.set(rk, [false]);
        }
      }
      for (const [rk, o] of open) {
        const acc = rules.get(rk);
        if (!acc) continue;
        for (const ignored of o) {
          if (ignored) acc.row.ignored++;
          else acc.row.noSign++;
        }
      }
    }
  }

  const rows: RuleRow[] = [];
  for (const acc of rules.values()) {
    const row = acc.row;
    const p = policies.get(row.policy);
    if (p) {
      row.events = p.events;
      row.sessions = p.sessions.size;
      row.eligibleSessions = p.eligibilityKnown ? p.eligible.size : null;
      row.errors = p.errors;
      row.failOpens = p.failOpens;
      row.latency = latencyOf(p.ms);
    }
    row.firedSessions = acc.firedIn.size;
    if (row.modes.length === 0) row.modes.push("enforce");
    row.modes.sort();
    row.fired = [...acc.links.values()];
    for (const l of row.fired) {
      if (l.outcome === "pass" || l.outcome === "fail" || l.outcome === "unknown")
        row.outcomes[l.outcome]++;
      else row.outcomes.other++;
    }
    // passed: of the sessions it fired in, those whose verifier passed (unknown without any)
    const judged = row.fired.length - row.outcomes.unknown;
    row.funnel = [
      { stage: "eligible", sessions: row.eligibleSessions },
      { stage: "fired", sessions: row.firedSessions },
      { stage: "followed", sessions: acc.followedIn.size },
      {
        stage: "passed",
        sessions: judged > 0 || row.fired.length === 0 ? row.outcomes.pass : null,
      },
    ];
    flag(row, th);
    rows.push(row);
  }
  rows.sort((a, b) =>
    a.policy === b.policy ? (a.rule < b.rule ? -1 : 1) : a.policy < b.policy ? -1 : 1,
  );
  return {
    files: logs.map((l) => l.file),
    lines,
    errors: logs.flatMap((l) => l.errors),
    sessions: sessions.size,
    events,
    faults,
    failOpens,
    failClosed,
    observedAnswers,
    latency: latencyOf(allMs),
    portfolios: [...portfolios.values()].map((p) => ({
      policies: p.policies,
      events: p.events,
      sessions: p.sessions.size,
    })),
    rules: rows,
  };
}

/** A blocked stop is logged at the stop; the row keeps the rule's own point when known. */
function acc0Point(
  rules: Map<string, RuleAcc>,
  key: string,
  f: HookLogEntry["firings"][number],
): string {
  return rules.get(`${key}/${f.ruleId}`)?.row.point ?? f.point;
}

function ruleAccFromKey(
  ruleAcc: (key: string, rule: string, point: string) => RuleAcc,
  rk: string,
): RuleAcc {
  const slash = rk.indexOf("/");
  return ruleAcc(rk.slice(0, slash), rk.slice(slash + 1), "?");
}

function flag(row: RuleRow, th: ReportThresholds): void {
  const firings = row.enforced.firings + row.observed.firings;
  const base = row.eligibleSessions ?? row.sessions;
  if (firings === 0 && base >= th.dormantSessions) {
    row.flags.push("dormant");
    row.why.push(
      `no firing in ${base} ${row.eligibleSessions === null ? "" : "eligible "}sessions`,
    );
  }
  if (firings >= th.noisyMinFirings) {
    const per = row.firedSessions > 0 ? firings / row.firedSessions : 0;
    const resolved = row.followed + row.ignored;
    const share = resolved > 0 ? row.ignored / resolved : 0;
    const why: string[] = [];
    if (per >= th.noisyPerSession) why.push(`${per.toFixed(1)} firings per session it fired in`);
    if (resolved > 0 && share >= th.noisyIgnoredShare)
      why.push(`${Math.round(share * 100)}% of ${resolved} resolved instructions ignored`);
    if (why.length > 0) {
      row.flags.push("noisy");
      row.why.push(...why);
    }
  }
}

/** Nearest-rank percentiles of hook times (ms). */
export function latencyOf(ms: readonly number[]): Latency {
  if (ms.length === 0) return { n: 0, p50: null, p95: null, p99: null };
  const s = Float64Array.from(ms).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** A candidate's field evidence: what the live hook did with one policy version. */
export interface PolicyField {
  /** `id@version` */
  policy: string;
  /** Its rules' rows (every rule of it in the logs or the portfolio). */
  rules: RuleRow[];
  /** Sessions in which it was loaded. */
  sessions: number;
  /** Sessions in which any of its rules fired. */
  firedSessions: number;
  enforced: ModeCounts;
  observed: ModeCounts;
  followed: number;
  ignored: number;
  /** Outcomes of the sessions any of its rules fired in (each session once). */
  outcomes: OutcomeCounts;
  flags: ("dormant" | "noisy")[];
}

const addCounts = (a: ModeCounts, b: ModeCounts): ModeCounts => ({
  firings: a.firings + b.firings,
  denies: a.denies + b.denies,
  escalations: a.escalations + b.escalations,
  blockedStops: a.blockedStops + b.blockedStops,
});

/** One policy version's rows folded into its field evidence (undefined: not in the report). */
export function policyField(report: HookReport, policy: string): PolicyField | undefined {
  const rules = report.rules.filter((r) => r.policy === policy);
  if (rules.length === 0) return undefined;
  const fired = new Map<string, SessionLink>();
  for (const r of rules)
    for (const l of r.fired) fired.set(`${l.file}\0${l.session}\0${l.agent ?? ""}`, l);
  const outcomes: OutcomeCounts = { pass: 0, fail: 0, other: 0, unknown: 0 };
  for (const l of fired.values()) {
    if (l.outcome === "pass" || l.outcome === "fail" || l.outcome === "unknown")
      outcomes[l.outcome]++;
    else outcomes.other++;
  }
  const flags = [...new Set(rules.flatMap((r) => r.flags))].sort();
  return {
    policy,
    rules,
    sessions: Math.max(...rules.map((r) => r.sessions)),
    firedSessions: fired.size,
    enforced: rules.map((r) => r.enforced).reduce(addCounts, emptyCounts()),
    observed: rules.map((r) => r.observed).reduce(addCounts, emptyCounts()),
    followed: rules.reduce((n, r) => n + r.followed, 0),
    ignored: rules.reduce((n, r) => n + r.ignored, 0),
    outcomes,
    flags,
  };
}
