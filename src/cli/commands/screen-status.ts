import type { Command } from "commander";
import { harborProgressText, runSummary } from "../../core/app/present.js";
import { screenStatus } from "../../core/app/results.js";
import { print } from "../util/out.js";
import { printJson, withWorkspace, workspaceDir } from "../util/workspace.js";

/** `fire screen status NAME [--json]`: plan, integrity, run progress and stored results. */
export function registerScreenStatus(screen: Command): void {
  withWorkspace(
    screen
      .command("status")
      .description("a screen at a glance: plan, integrity, run progress, results")
      .argument("<name>", "screen name (screens/<name>/)")
      .option("--json", "print the status as JSON"),
  ).action(async (name: string, opts: { workspace?: string; json?: boolean }) => {
    const s = await screenStatus(workspaceDir(opts), name);
    if (opts.json) {
      printJson(s);
      return;
    }
    const lines = [`screen ${name}`];
    if (s.planned) {
      const cohorts = Object.entries(s.cohorts)
        .map(([c, n]) => `${c} ${n}`)
        .join(", ");
      lines.push(
        `  plan     ${s.tasks} task(s) (${cohorts}); arms ${s.arms.join(", ")}; ${s.attempts} attempt(s); ${s.cells} cell(s)`,
      );
      lines.push(
        `  intact   ${s.planProblems.length ? `NO: ${s.planProblems.join("; ")}` : "yes (hashes match)"}`,
      );
      lines.push(`  run      ${runSummary(s)}`);
    } else {
      lines.push("  plan     none (results imported directly)");
    }
    lines.push(`  results  ${s.results} attempt(s) stored, ${s.unscorable} unscorable`);
    for (const [arm, a] of Object.entries(s.byArm)) {
      if (!a.unscorable) continue;
      const why = Object.entries(a.reasons)
        .sort((x, y) => y[1] - x[1])
        .map(([reason, n]) => `${n}× ${reason}`)
        .join("; ");
      lines.push(`    ${arm}: ${a.unscorable} of ${a.results} unscorable (${why})`);
    }
    if (s.harbor) {
      const h = s.harbor;
      const tokens = Object.entries(h.tokens)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ");
      lines.push(
        `  harbor   ${h.jobs} job(s): ${harborProgressText(h)}${h.costUsd === undefined ? " (no cost reported)" : ""}${tokens ? `; tokens ${tokens}` : ""}`,
      );
      if (h.jobsWithoutCost)
        lines.push(`    ${h.jobsWithoutCost} job(s) with finished trials reported no cost`);
      const arms = Object.entries(h.byArm).map(([arm, a]) => `${arm} ${harborProgressText(a)}`);
      if (arms.length) lines.push(`    per arm: ${arms.join("; ")}`);
      for (const p of h.problems) lines.push(`    problem: ${p}`);
    }
    print(`${lines.join("\n")}\n`);
  });
}
