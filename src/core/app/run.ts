import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { FIRE_CLI } from "../deploy/install.js";
import { DomainError, InvalidFieldError } from "../errors.js";
import {
  DEFAULT_HARBOR_TEMPLATE,
  runHarborScreen,
  runHarborSmoke,
  type SmokeReport,
} from "../screening/run/harbor.js";
import { runLocalScreen } from "../screening/run/local.js";
import type { RebuildHook } from "../screening/run/payload.js";
import {
  RunSettings,
  type RunSettingsInput,
  readRunSettings,
  writeRunSettings,
} from "../screening/run/settings.js";
import type { RunProgress, RunSummary } from "../screening/run/types.js";
import type { Workspace } from "../workspace/load.js";
import { armHookInstaller } from "./hook.js";
import { screenAttemptLoader } from "./results.js";

export {
  type ScheduleTrial,
  type ScreenSchedule,
  screenSchedule,
  TRIAL_STATUSES,
  type TrialStatus,
} from "../screening/run/schedule.js";
export type { RunSettings, RunSettingsInput } from "../screening/run/settings.js";
export { parseVars } from "../screening/run/template.js";
export type { RunProgress, RunSummary, SmokeReport };
export { DEFAULT_HARBOR_TEMPLATE };

export interface RunScreenRequest {
  workspace: string;
  name: string;
  settings: RunSettingsInput;
  /** How hook commands call fire (default: this node and this fire build). */
  fireBin?: readonly string[];
  onProgress?: (p: RunProgress) => void;
  /** Stops after the running trials end; finished ones are kept and a re-run resumes. */
  signal?: AbortSignal;
  /** Harbor: rebuilds the standalone hook the containers get (src/build, passed in). */
  rebuildHook?: RebuildHook;
}

/**
 * This node running this fire build's bin (`dist/cli/fire.cjs`; run from its sources, as the
 * test suite does, FIRE_CLI already names the build beside them).
 */
export function defaultFireBin(): string[] {
  return [process.execPath, FIRE_CLI];
}

/**
 * `fire screen run NAME` / the workbench's Runs screen (`s`): runs the plan's pending trials
 * with the local runner or Harbor (resumably: finished trials are skipped), and records the
 * settings it ran with so a later resume from either front end runs the same way.
 */
export async function runScreen(req: RunScreenRequest): Promise<RunSummary> {
  return runOrSmoke(req, false) as Promise<RunSummary>;
}

/**
 * `fire screen run NAME --smoke`: the run's checks, then one Harbor trial of a hooked arm,
 * outside the results; the report says whether the hook ran inside the sandbox.
 */
export async function smokeScreen(req: RunScreenRequest): Promise<SmokeReport> {
  return runOrSmoke(req, true) as Promise<SmokeReport>;
}

async function runOrSmoke(
  req: RunScreenRequest,
  smoke: boolean,
): Promise<RunSummary | SmokeReport> {
  const parsed = RunSettings.safeParse(req.settings);
  if (!parsed.success)
    throw new DomainError("invalid", `run settings: ${parsed.error.issues[0]?.message}`);
  // a folder given relative to where the command ran: recorded absolute, for later resumes
  const s = {
    ...parsed.data,
    ...(parsed.data.copyFrom ? { copyFrom: resolve(parsed.data.copyFrom) } : {}),
    ...(parsed.data.adapter ? { adapter: resolve(parsed.data.adapter) } : {}),
  };
  if (s.runner === "local" && (s.env || s.delivery || s.adapter))
    throw new InvalidFieldError("env", "a Harbor environment", "needs the harbor runner");
  if (s.runner === "local" && !s.command)
    throw new InvalidFieldError("command", "the local runner", "needs a command template");
  if (s.copyFrom && !existsSync(s.copyFrom))
    throw new InvalidFieldError("copyFrom", "copy-from folder", `${s.copyFrom}: no such folder`);
  const common = {
    workspace: req.workspace,
    name: req.name,
    fireBin: req.fireBin ?? defaultFireBin(),
    vars: s.vars,
    concurrency: s.concurrency,
    ...(s.timeoutS ? { timeoutMs: s.timeoutS * 1000 } : {}),
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
  };
  if (smoke && s.runner !== "harbor")
    throw new InvalidFieldError("runner", "a smoke run", "needs the harbor runner");
  if (!smoke) await writeRunSettings(req.workspace, req.name, s);
  if (s.runner === "local")
    return runLocalScreen({
      ...common,
      template: s.command!,
      installHook: armHookInstaller(s.harness),
      ...(s.copyFrom ? { copyFrom: s.copyFrom } : {}),
    });
  return (smoke ? runHarborSmoke : runHarborScreen)({
    ...common,
    harness: s.harness,
    ...(s.env ? { env: s.env } : {}),
    ...(s.delivery ? { delivery: s.delivery } : {}),
    ...(s.adapter ? { adapterFile: s.adapter } : {}),
    ...(s.command ? { template: s.command } : {}),
    ...(s.harborBin ? { harborBin: s.harborBin } : {}),
    ...(req.rebuildHook ? { rebuildHook: req.rebuildHook } : {}),
    loadAttempts: screenAttemptLoader(req.workspace),
  });
}

/** The line a finished run ends with (`fire screen run` and the workbench's message line). */
export function runSummaryLine(name: string, s: RunSummary): string {
  return `screen ${name}: ${s.done}/${s.total} done (${s.skipped} from an earlier run), ${s.failed} failed${s.aborted ? "; stopped early: run again to resume" : ""}`;
}

/**
 * The settings the workbench runs a screen with: those of its last run, else the
 * workspace's `screen.run`; undefined when neither says how.
 */
export async function runSettingsFor(
  ws: Pick<Workspace, "dir" | "config">,
  name: string,
): Promise<RunSettings | undefined> {
  return (await readRunSettings(ws.dir, name)) ?? ws.config.screen.run;
}
