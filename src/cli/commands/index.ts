import type { Command } from "commander";
import { registerAttempts } from "./attempts.js";
import { registerCandidate } from "./candidate.js";
import { registerCluster } from "./cluster.js";
import { registerClusters } from "./clusters.js";
import { registerDraft } from "./draft.js";
import { registerExport } from "./export.js";
import { registerFreeze } from "./freeze.js";
import { registerHook } from "./hook.js";
import { registerImport } from "./import.js";
import { registerMine } from "./mine.js";
import { registerReplay } from "./replay.js";
import { registerReport } from "./report.js";
import { registerRoute } from "./route.js";
import { registerScreen } from "./screen.js";
import { registerShow } from "./show.js";
import { registerSummary } from "./summary.js";
import { registerTriage } from "./triage.js";

/**
 * Every CLI command registers itself here: one import and one call per command
 * file. Keep this list the only place that knows all commands.
 */
export function registerAll(program: Command): void {
  registerSummary(program);
  registerImport(program);
  registerAttempts(program);
  registerShow(program);
  registerExport(program);
  registerScreen(program);
  registerReport(program);
  registerTriage(program);
  registerMine(program);
  registerClusters(program);
  registerCluster(program);
  registerHook(program);
  registerReplay(program);
  registerDraft(program);
  registerRoute(program);
  registerCandidate(program);
  registerFreeze(program);
}
