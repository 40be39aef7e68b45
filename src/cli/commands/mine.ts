import type { Command } from "commander";
import {
  loadValidationSet,
  mine,
  type ValidationReport,
  validateMining,
} from "../../core/app/mining.js";
import {
  labelOutcome,
  outcomeProblem,
  renderMine,
  renderValidation,
} from "../../core/app/present.js";
import { UsageError } from "../../core/errors.js";
import type { MineResult } from "../../core/mine/mine.js";
import type { RunReport } from "../../llm/report.js";
import { workspaceServices } from "../../services.js";
import { print, printErr } from "../util/out.js";
import { openWorkspace, printJson, withWorkspace } from "../util/workspace.js";

interface MineOptions {
  workspace?: string;
  labeler: string;
  batch?: boolean;
  json?: boolean;
  validate?: string;
  retryUnlabelled?: boolean;
}

/** One line about an LLM run: requests, cache hits, tokens, cost, why it stopped. */
function renderRunReport(rep: RunReport): string {
  const stop = rep.stoppedBy ? `; stopped by ${rep.stoppedBy}` : "";
  return (
    `llm ${rep.model} (${rep.outputMode}): ${rep.requests} request(s), ${rep.retries} retr(ies), ${rep.repairs} repair(s), ` +
    `${rep.cacheHits} cache hit(s), ${rep.promptTokens}+${rep.completionTokens} tokens, $${rep.costUsd.toFixed(4)}; ` +
    `${rep.labelled} labelled, ${rep.unlabelled} unlabelled${stop}` +
    (rep.batch?.errors?.length
      ? `\nbatch ${rep.batch.id} ${rep.batch.status}: ${rep.batch.errors.join("; ")}`
      : "")
  );
}

/** JSON of `fire mine --json` / `fire clusters --json`. */
export function mineJson(r: MineResult, validation?: ValidationReport): unknown {
  // a set, not a search of the labels per hit: 100,000 hits × 15,000 labels took minutes
  const labelled = new Set(r.labels.map((l) => l.attemptId));
  return {
    labeler: r.labeler,
    labelled: r.labelled,
    failed: r.failed,
    reused: r.reused,
    reusedFailed: r.reusedFailed,
    triage: r.finalTriage,
    labels: r.labels,
    hits: Object.fromEntries([...r.hits.entries()].filter(([id]) => labelled.has(id))),
    clusters: r.clusters,
    review: r.review,
    userExcluded: r.userExcluded,
    ...(validation ? { validation } : {}),
    ...(r.report !== undefined ? { report: r.report } : {}),
  };
}

/** `fire mine`: label failed attempts in scope and cluster them by mechanism. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("mine")
      .description(
        "label the failed attempts in scope (heuristic or LLM) and cluster them by mechanism",
      )
      .option("--labeler <name>", "llm | heuristic", "heuristic")
      .option("--batch", "with --labeler llm: use the OpenAI Batch API")
      .option("--json", "print labels, clusters and triage as JSON")
      .option(
        "--retry-unlabelled",
        "label again the attempts that stayed unlabelled (a cached re-run sends no request for them)",
      )
      .option(
        "--validate <file>",
        "compare labels with a validation set: agreement per family, mechanism and exclusion, every miss",
      ),
  ).action(async (opts: MineOptions) => {
    if (opts.labeler !== "llm" && opts.labeler !== "heuristic") {
      throw new UsageError(`--labeler must be llm or heuristic, not "${opts.labeler}"`);
    }
    if (opts.batch && opts.labeler !== "llm") throw new UsageError("--batch needs --labeler llm");
    const set = opts.validate ? await loadValidationSet(opts.validate) : undefined;
    const ws = await openWorkspace(opts);
    const tty = process.stderr.isTTY === true;
    const external =
      opts.labeler === "llm"
        ? await workspaceServices(ws).labeler({ batch: opts.batch === true })
        : undefined;
    const r = await mine(
      { ws },
      {
        labeler: opts.labeler,
        ...(external ? { external } : {}),
        ...(opts.retryUnlabelled ? { retryUnlabelled: true } : {}),
        ...(tty
          ? {
              onProgress: (p) => {
                process.stderr.write("\r");
                printErr(`${p.phase} ${p.done}/${p.total}`);
                process.stderr.write("\x1b[K");
              },
            }
          : {}),
      },
    );
    if (tty) process.stderr.write("\r\x1b[K");
    const validation = set ? validateMining({ ws }, r, set) : undefined;
    if (opts.json) printJson(mineJson(r, validation));
    else {
      print(renderMine(r));
      if (r.report !== undefined) print(`\n${renderRunReport(r.report as RunReport)}\n`);
      if (validation) print(`\n${renderValidation(validation)}`);
    }
    // Honest about failures: a run that labelled nothing fails; a partial one says how to retry.
    const outcome = labelOutcome(r);
    const problem = outcomeProblem(outcome, (r.report as RunReport | undefined)?.endpoint);
    if (problem) printErr(`fire: ${problem}\n`);
    if (outcome.nothingLabelled) process.exitCode = 1;
    // The new labels change triage's key: keep the triage (its cache, its text and the
    // workbench's glance) current now, from the workspace already read, so the next
    // `fire triage` and the next workbench open do not read and compute it again.
    await (await import("../../core/app/triage.js")).triageText(ws);
  });
}
