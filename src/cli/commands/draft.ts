import { relative } from "node:path";
import type { Command } from "commander";
import { draft } from "../../core/app/lifecycle.js";
import { clusterNamed, minedClusters } from "../../core/app/mining.js";
import { policyKey } from "../../core/app/present.js";
import { UsageError } from "../../core/errors.js";
import { workspaceServices } from "../../services.js";
import { print, printErr } from "../util/out.js";
import { openWorkspace, printJson, withWorkspace } from "../util/workspace.js";

interface DraftOpts {
  workspace?: string;
  cluster: string;
  llm?: boolean;
  format?: string;
  json?: boolean;
}

/** `fire draft --cluster ID [--llm]`: a draft candidate for one mechanism cluster. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("draft")
      .description(
        "draft a candidate policy for a mechanism cluster (family template, or --llm) into candidates/drafts/",
      )
      .requiredOption(
        "--cluster <id>",
        "cluster id, id prefix (4+ characters) or exact name from `fire clusters`",
      )
      .option("--llm", "draft with the LLM (structured output, validated and safety-checked)")
      .option("--format <fmt>", "yaml or json", "yaml")
      .option("--json", "print the result as JSON"),
  ).action(async (opts: DraftOpts) => {
    if (opts.format !== "yaml" && opts.format !== "json")
      throw new UsageError("--format must be yaml or json");
    const ws = await openWorkspace(opts);
    const cluster = clusterNamed(await minedClusters({ ws }), opts.cluster);
    const result = await draft({ ws }, cluster, {
      ext: opts.format,
      ...(opts.llm ? { ask: await workspaceServices(ws).drafter() } : {}),
    });
    if (!result.ok && result.reason === "invalid") {
      if (opts.json) printJson({ cluster: cluster.id, ...result });
      printErr(
        `fire: the ${result.drafter} drafter produced no valid candidate for ${cluster.id} (nothing saved):\n${result.problems.map((p) => `  - ${p}`).join("\n")}\n`,
      );
      process.exitCode = 1;
      return;
    }
    if (!result.ok)
      throw new Error(
        `${relative(ws.dir, result.file)} already exists: revise it with \`fire candidate revise ${result.candidate.id}\``,
      );
    const { file, check, learned } = result;
    if (opts.json)
      printJson({
        ok: true,
        file,
        drafter: result.drafter,
        candidate: result.candidate,
        ...(learned ? { learned } : {}),
        routing: check,
        warnings: check.warnings,
      });
    else {
      const phrases = learned?.phrases.length
        ? `eligibility learned from ${learned.positives} lineage task text(s) vs ${learned.negatives} other(s):\n${learned.phrases.map((p) => `  ${p.label}: routes ${p.positives}/${learned.positives} lineage, ${p.negatives}/${learned.negatives} other task(s)`).join("\n")}\n`
        : "";
      print(
        `drafted ${policyKey(result.candidate)} (${result.candidate.family}, ${result.drafter}) from cluster ${cluster.id}: ${relative(ws.dir, file)}\n` +
          `lineage: ${cluster.attemptIds.length} attempt(s); status draft (never frozen automatically)\n` +
          phrases +
          `routes ${check.lineageRouted}/${check.lineageTasks} lineage task(s) and ${check.outsideRouted.length} other(s); fires on ${check.lineageFired}/${check.lineageAttempts} lineage attempt(s) in replay\n`,
      );
    }
    for (const w of check.warnings) printErr(`fire: warning: ${result.candidate.id} ${w}\n`);
  });
}
