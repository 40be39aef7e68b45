import { InputError } from "../../errors.js";
import { analyzeScreen, type ScreenAnalysis } from "../../stats/analyze.js";
import type { ContrastOptions } from "../../stats/contrast.js";
import { loadConfig } from "../../workspace/config.js";
import { screenPaths } from "../paths.js";
import { readPlanIfAny } from "../plan/plan-file.js";
import { type HarborRunSummary, harborRunSummary } from "../run/harbor-progress.js";
import { readResults, type StoredRows } from "./results-file.js";
import { toObservations } from "./row.js";

export interface LoadedAnalysis {
  analysis: ScreenAnalysis;
  /** What the run cost and how far it got, as Harbor reported it (Harbor runs only). */
  harbor?: HarborRunSummary;
  errors: InputError[];
  rows: number;
}

/**
 * The stored result rows of a screen (bad lines are errors, the good ones still load); a
 * screen with no results at all is an error naming the file. `fire report` and
 * `fire export screen` read them here.
 */
export async function readScreenRows(workspace: string, name: string): Promise<StoredRows> {
  const file = screenPaths(workspace, name).results;
  const stored = await readResults(file);
  if (stored.rows.length === 0 && stored.errors.length === 0) {
    throw new InputError(
      file,
      undefined,
      `no results for screen "${name}" (run \`fire screen import ${name} FILE\` first)`,
    );
  }
  return stored;
}

/**
 * Reads `screens/<name>/results.jsonl` and computes every statistic with the workspace's
 * settings: seed = the option, else the plan's, else `screen.seed`; bootstrap resamples
 * and permutation flips from `screen`; verdict thresholds from `verdicts`.
 */
export async function loadScreenAnalysis(
  workspace: string,
  name: string,
  opts: ContrastOptions = {},
): Promise<LoadedAnalysis> {
  const config = await loadConfig(workspace);
  const { rows, errors } = await readScreenRows(workspace, name);
  const seed = opts.seed ?? (await readPlanIfAny(workspace, name))?.seed ?? config.screen.seed;
  const analysis = analyzeScreen(toObservations(rows), {
    seed,
    resamples: opts.resamples ?? config.screen.bootstrapResamples,
    flips: opts.flips ?? config.screen.permutationFlips,
    thresholds: config.verdicts,
  });
  const harbor = harborRunSummary(screenPaths(workspace, name).jobs);
  return { analysis, errors, rows: rows.length, ...(harbor ? { harbor } : {}) };
}
