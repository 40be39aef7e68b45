import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mine } from "../core/mine/mine.js";
import type { FireConfig } from "../core/workspace/config.js";
import { loadWorkspace } from "../core/workspace/load.js";
import {
  type DevSource,
  defaultLocations,
  devSourceFiles,
  type Gold,
  readDevSource,
} from "./dev-sources.js";
import type { Recording } from "./llm-replay.js";
import {
  attemptsOfTrials,
  type LlmSourceRun,
  llmSays,
  recordingPath,
  saysOf,
} from "./mine-real-llm.js";
import {
  calibration,
  type FireSays,
  figures,
  LIMITS,
  objective,
  type SourceScore,
  scoreSource,
} from "./mine-score.js";
import type { Benchmark, BenchResult } from "./types.js";

/**
 * The settings the bench tunes: the evidence strength at which the heuristic labeller
 * names a mechanism. A leave-one-source-out figure scores each source with the setting
 * that did best on the other sources only.
 */
export const GRID: readonly { nameThreshold: number }[] = [
  { nameThreshold: 1 },
  { nameThreshold: 2 },
  { nameThreshold: 3 },
];

/**
 * The setting a held-out source is scored with: the one whose objective summed over the
 * other sources is highest (`scores[source][setting]`). A tie keeps the default: a held-out
 * source is not scored with a looser setting that the other sources merely did not mind.
 */
export function heldOutSetting(
  scores: readonly (readonly SourceScore[])[],
  heldOut: number,
  defaultAt: number,
): number {
  let best = defaultAt;
  let bestScore = Number.NEGATIVE_INFINITY;
  const settings = scores[0]?.length ?? 0;
  Array.from({ length: settings }).forEach((_, g) => {
    const others = scores
      .filter((_, j) => j !== heldOut)
      .reduce((sum, per) => sum + objective(per[g] as SourceScore), 0);
    if (others > bestScore + 1e-9 || (g === defaultAt && others >= bestScore - 1e-9)) {
      bestScore = others;
      best = g;
    }
  });
  return best;
}

/** What fire said about each labelled trial of a source, mined with one setting. */
async function fireSays(
  src: DevSource,
  corpus: string,
  setting: (typeof GRID)[number],
): Promise<Map<string, FireSays>> {
  const tmp = await mkdtemp(join(tmpdir(), "fire-bench-mine-real-"));
  try {
    const rewardKey = src.rewardKey ? { rewardKey: src.rewardKey } : {};
    await writeFile(
      join(tmp, "fire.config.json"),
      JSON.stringify({ sources: [corpus], ...rewardKey }),
    );
    const ws = await loadWorkspace(tmp);
    const config: FireConfig = {
      ...ws.config,
      mining: { ...ws.config.mining, ...setting },
    };
    const r = await mine(ws.attempts, { labeler: "heuristic", config });
    const trials = [...src.trials.keys()];
    return saysOf(trials, attemptsOfTrials(ws.attempts, trials), r);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Every labelled trial of a source: its gold label and what fire said (FIRE_BENCH_VERBOSE). */
function logTrials(
  log: (line: string) => void,
  src: DevSource,
  says: ReadonlyMap<string, FireSays> | undefined,
): void {
  for (const [trial, g] of src.trials) {
    const f = says?.get(trial) ?? {};
    const fire = f.excluded
      ? `excluded ${f.excluded}`
      : f.named
        ? `named ${f.named}`
        : "needs review";
    log(
      `  ${trial.padEnd(44)} gold ${g.cls}${g.alt ? `/${g.alt}` : ""} ${g.mechanism ?? g.row ?? ""} → ${fire}`,
    );
  }
}

const pct = (x: number): string => (Number.isNaN(x) ? "n/a" : x.toFixed(2));

function line(name: string, s: SourceScore): string {
  const f = figures(s);
  return (
    `${name.padEnd(28)} precision ${pct(f.precision)} (${s.namedRight}/${s.named})  ` +
    `recall ${pct(f.recall)} (${s.kept}/${s.goldInScope})  mechanism ${pct(f.mechanism)} ` +
    `(${s.mechAgree}/${s.mechCompared})  fault ${pct(f.fault)} (${s.faultAgree}/${s.counted})  ` +
    `B-cubed F ${pct(f.bcubed)}`
  );
}

function rows(prefix: string, s: SourceScore, note: string): BenchResult[] {
  const f = figures(s);
  const row = (target: string, measured: number, limit: number, n: string): BenchResult => ({
    target: `${prefix} ${target}`,
    measured,
    limit,
    kind: "min",
    note: `${n}${note ? `; ${note}` : ""}`,
  });
  // a figure with nothing to count (no mechanism named, no in-scope trial) is left out:
  // naming nothing is precision-safe, and its recall row says what was missed
  return [
    row("named precision", f.precision, LIMITS.precision, `${s.namedRight}/${s.named}`),
    row("in-scope recall", f.recall, LIMITS.recall, `${s.kept}/${s.goldInScope}`),
    row("mechanism agreement", f.mechanism, LIMITS.mechanism, `${s.mechAgree}/${s.mechCompared}`),
    row("fault agreement", f.fault, LIMITS.fault, `${s.faultAgree}/${s.counted}`),
    row("cluster B-cubed F", f.bcubed, LIMITS.bcubed, `${s.goldInScope} in-scope trials`),
  ].filter((r) => !Number.isNaN(r.measured));
}

export const mineRealBenchmark: Benchmark = {
  name: "mine-real",
  description:
    "mining of every labelled real source: heuristic per source and leave-one-source-out, LLM replayed",
  async run(log) {
    const loc = defaultLocations();
    const sources: { src: DevSource; corpus: string }[] = [];
    // FIRE_BENCH_ONLY=a,b scores only the named sources (a first look at a new one, without
    // spending the machine on all the others)
    const only = process.env.FIRE_BENCH_ONLY?.split(",").filter(Boolean);
    for (const file of devSourceFiles(loc)) {
      const src = readDevSource(file, loc);
      if (only && !only.includes(src.name)) continue;
      if (!src.corpus) {
        log(`skipped ${src.name}: ${src.missing}`);
        continue;
      }
      sources.push({ src, corpus: src.corpus });
    }
    if (sources.length === 0) throw new Error("no labelled source has its traces on this machine");
    // scores[source][setting]
    const scores: SourceScore[][] = [];
    const said: Map<string, FireSays>[][] = [];
    for (const { src, corpus } of sources) {
      const per: SourceScore[] = [];
      const perSaid: Map<string, FireSays>[] = [];
      for (const setting of GRID) {
        const says = await fireSays(src, corpus, setting);
        perSaid.push(says);
        per.push(scoreSource(src.trials, says));
      }
      scores.push(per);
      said.push(perSaid);
    }
    const results: BenchResult[] = [];
    const defaultAt = GRID.findIndex((g) => g.nameThreshold === 2);
    log("per source, default settings:");
    sources.forEach(({ src }, i) => {
      const s = scores[i]?.[defaultAt];
      if (s) log(line(src.name, s));
    });
    log("leave-one-source-out (setting chosen on the other sources):");
    sources.forEach(({ src }, i) => {
      const best = heldOutSetting(scores, i, defaultAt);
      const s = scores[i]?.[best] as SourceScore;
      const setting = `nameThreshold=${GRID[best]?.nameThreshold}`;
      log(`${line(src.name, s)}  [${setting}]`);
      // every trial: its gold label and what fire said with the default setting
      if (process.env.FIRE_BENCH_VERBOSE) logTrials(log, src, said[i]?.[defaultAt]);
      results.push(...rows(`${src.name} (held out)`, s, setting));
    });
    log("calibration (default settings, all sources pooled): shown confidence against the gold");
    logCalibration(
      log,
      sources.map(({ src }, i) => ({
        gold: src.trials,
        says: said[i]?.[defaultAt] ?? new Map<string, FireSays>(),
      })),
    );
    if (process.env.FIRE_BENCH_LLM !== "off") {
      log(
        "LLM labeller, answers replayed from validation/recordings/<source>.json, " +
          "leave-one-source-out (setting chosen on the other sources):",
      );
      const runs: LlmSourceRun[][] = [];
      for (const { src, corpus } of sources)
        runs.push(
          await Promise.all(
            LLM_GRID.map((setting, g) =>
              llmRun(src, corpus, recordingPath(src.name), setting, g === LLM_DEFAULT),
            ),
          ),
        );
      const llmScores = runs.map((per, i) =>
        per.map((run) =>
          complete(run) ? scoreSource(sources[i]?.src.trials ?? new Map(), run.says) : EMPTY,
        ),
      );
      const llmSaid: Said[] = [];
      sources.forEach(({ src }, i) => {
        const best = heldOutSetting(llmScores, i, LLM_DEFAULT);
        const run = runs[i]?.[best] as LlmSourceRun;
        const setting = `nameUncorroborated=${LLM_GRID[best]?.nameUncorroborated}`;
        results.push(...llmRowsOf(src, run, log, llmSaid, setting));
      });
      log("LLM calibration (all sources pooled): the model's confidence against the gold");
      logCalibration(log, llmSaid);
    }
    return results;
  },
};

/** What one labeller said about one source's labelled trials, with their gold labels. */
type Said = { gold: ReadonlyMap<string, Gold>; says: ReadonlyMap<string, FireSays> };

/** Per shown confidence: how many labels, and how often named ones the gold keeps in scope. */
function logCalibration(log: (line: string) => void, said: readonly Said[]): void {
  for (const b of calibration(said))
    log(
      `  confidence ${b.confidence.toFixed(2)}: ${b.labels} label(s); named ${b.named}, ` +
        `in scope ${b.namedInScope}/${b.named}, mechanism ${b.mechAgree}/${b.mechCompared}; ` +
        `for review ${b.labels - b.named}, in scope ${b.reviewInScope}/${b.labels - b.named}`,
    );
}

/** `FIRE_LLM_PROMPT_DUMP`: the folder unmatched prompts go to, one subfolder per source. */
const dumpRoot = (): string | undefined => process.env.FIRE_LLM_PROMPT_DUMP || undefined;

/**
 * One source's LLM line and rows; an incomplete recording gives its answered count only.
 * `recording` defaults to the source's file under validation/recordings/.
 */
export async function llmRows(
  src: DevSource,
  corpus: string | string[],
  log: (line: string) => void,
  recording: string | Recording = recordingPath(src.name),
  /** Receives what the LLM said on this source (for the pooled calibration). */
  said?: Said[],
): Promise<BenchResult[]> {
  const run = await llmRun(src, corpus, recording, LLM_GRID[LLM_DEFAULT] ?? {}, true);
  return llmRowsOf(src, run, log, said);
}

/**
 * The settings of the LLM labeller the bench chooses per held-out source: whether a
 * mechanism no detector reads in the trace is named (default: not, kept for review).
 */
export const LLM_GRID: readonly { nameUncorroborated: boolean }[] = [
  { nameUncorroborated: false },
  { nameUncorroborated: true },
];
const LLM_DEFAULT = 0;

/** A score with nothing counted: the same objective for every setting. */
const EMPTY: SourceScore = scoreSource(new Map(), new Map());

const complete = (run: LlmSourceRun): boolean => run.answered >= run.asked;

/** The LLM labeller on one source with one setting; only the default run dumps prompts. */
async function llmRun(
  src: DevSource,
  corpus: string | string[],
  recording: string | Recording,
  setting: { nameUncorroborated?: boolean },
  dump: boolean,
): Promise<LlmSourceRun> {
  const root = dump ? dumpRoot() : undefined;
  return llmSays({
    trials: src.trials,
    sources: Array.isArray(corpus) ? corpus : [corpus],
    ...(src.rewardKey ? { rewardKey: src.rewardKey } : {}),
    recording,
    ...(root ? { dumpDir: join(root, src.name) } : {}),
    ...setting,
  });
}

/** One source's LLM line and rows from a run; an incomplete run gives its answered count. */
function llmRowsOf(
  src: DevSource,
  run: LlmSourceRun,
  log: (line: string) => void,
  said?: Said[],
  setting?: string,
): BenchResult[] {
  const counts =
    `answered ${run.answered}/${run.asked}, unmatched ${run.unmatched}, ` +
    `stale ${run.stale}, invalid ${run.invalid}` +
    (setting ? `; ${setting}` : "") +
    (run.dumped ? `; prompts in ${run.dumped}` : "");
  const name = `${src.name} LLM`;
  for (const f of run.invalidReasons) log(`  invalid answer for ${f.attemptId}: ${f.reason}`);
  if (run.answered < run.asked) {
    log(`${name.padEnd(28)} incomplete (answered ${run.answered}/${run.asked})  [${counts}]`);
    return [
      {
        target: `${name} recording answered`,
        measured: run.asked === 0 ? 0 : run.answered / run.asked,
        limit: 1,
        kind: "min",
        note: `incomplete (answered ${run.answered}/${run.asked}); figures not computed`,
      },
    ];
  }
  const s = scoreSource(src.trials, run.says);
  said?.push({ gold: src.trials, says: run.says });
  log(`${line(name, s)}  [${counts}]`);
  if (process.env.FIRE_BENCH_VERBOSE) logTrials(log, src, run.says);
  return rows(
    name,
    s,
    `answered ${run.answered}/${run.asked}, stale ${run.stale}${setting ? `; ${setting}` : ""}`,
  );
}
