import { resolve } from "node:path";
import type { Command } from "commander";
import { cachedClusters, renderMineSummary } from "../../core/app/cached-reads.js";
import type { MineResult } from "../../core/mine/mine.js";
import type { Workspace } from "../../core/workspace/load.js";
import type { RunReport } from "../../llm/report.js";
import { print, printErr } from "../util/out.js";
import { openCurrent, openHead, printJson, withWorkspace } from "../util/workspace.js";

type Opts = { workspace?: string; json?: boolean; suggest?: boolean };

function reportLine(rep: RunReport, cached: boolean): string {
  return (
    `llm ${rep.model}: ${rep.requests} request(s), ${rep.repairs} repair(s), ` +
    `${rep.promptTokens}+${rep.completionTokens} tokens, $${rep.costUsd.toFixed(4)}` +
    `${cached ? "; answer from the cache" : ""}${rep.stoppedBy ? `; stopped by ${rep.stoppedBy}` : ""}`
  );
}

/** `--suggest`: LLM names and merges, printed as commands; nothing is recorded. */
async function suggest(ws: Workspace, r: MineResult, opts: Opts): Promise<void> {
  const [{ workspaceServices }, { renderSuggestions, suggestedChanges }] = await Promise.all([
    import("../../services.js"),
    import("../../core/app/present.js"),
  ]);
  const { outcome, report } = await workspaceServices(ws).suggest(r.clusters, r.labels);
  if (!outcome.ok) {
    if (opts.json) printJson({ ok: false, reason: outcome.reason, report });
    printErr(`fire: no cluster suggestions: ${outcome.reason}\n`);
    process.exitCode = 1;
    return;
  }
  const wsArg = resolve(ws.dir) === process.cwd() ? undefined : ws.dir;
  const changes = suggestedChanges(outcome.suggestions, r.clusters, wsArg);
  if (opts.json) {
    printJson({
      ok: true,
      applied: false,
      cached: outcome.cached,
      clusters: r.clusters.map((c) => ({ id: c.id, name: c.name })),
      suggestions: outcome.suggestions,
      changes,
      report,
    });
    return;
  }
  print(renderSuggestions(changes, r.clusters.length));
  print(`\n${reportLine(report, outcome.cached)}\n`);
}

function nothingMined(): void {
  printErr("fire: nothing mined yet: run `fire mine` first\n");
  process.exitCode = 1;
}

/** `fire clusters`: the current mechanism clusters (cached labels + your decisions). */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("clusters")
      .description("show mechanism clusters from the last `fire mine` with your decisions applied")
      .option("--json", "print clusters as JSON")
      .option(
        "--suggest",
        "ask the LLM for cluster names and merges; prints the `fire cluster` commands, applies nothing",
      ),
  ).action(async (opts: Opts) => {
    if (!opts.suggest && !opts.json) {
      // the text needs only the summary, kept small beside the mining cache: from the
      // index's head while nothing changed, else computed over the workspace
      const head = await openHead(opts);
      const summary =
        (head && (await cachedClusters(head))) ||
        (await (
          await import("../../core/app/clusters.js")
        ).clustersSummary({
          ws: await openCurrent(opts),
        }));
      if (summary) print(renderMineSummary(summary));
      else nothingMined();
      return;
    }
    const ws = await openCurrent(opts);
    const { clusters } = await import("../../core/app/mining.js");
    const r = await clusters({ ws });
    if (!r) {
      nothingMined();
      return;
    }
    if (opts.suggest) await suggest(ws, r, opts);
    else printJson((await import("./mine.js")).mineJson(r));
  });
}
