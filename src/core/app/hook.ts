import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { diagnoseHook } from "../deploy/doctor.js";
import { installHook, setHookMode, uninstallHook } from "../deploy/install.js";
import {
  defaultPluginDir,
  installHookPlugin,
  uninstallHookPlugin,
} from "../deploy/plugin-install.js";
import type { Harness } from "../deploy/settings.js";
import { InputError } from "../errors.js";
import { defaultPortfolioDir } from "../freeze/default.js";
import { loadPolicySource, resolvePolicySource } from "../freeze/policy-source.js";
import { type HookReport, hookReport, type ReportThresholds } from "../hook-report/report.js";
import type { HookInstaller } from "../screening/run/hook.js";
import { parseConfig } from "../workspace/config.js";
import { workspacePaths } from "../workspace/paths.js";

export type { DoctorReport } from "../deploy/doctor.js";
export type { HookTarget, InstallHookRequest, InstallReport } from "../deploy/install.js";
export type { PluginReport } from "../deploy/plugin-install.js";
export type { Harness } from "../deploy/settings.js";
export {
  hookReportJson,
  latencyText,
  outcomesText,
  renderHookReportCsv,
  renderHookReportText,
  ruleDetailLines,
  ruleLines,
  sessionLinkText,
} from "../hook-report/render.js";
export type {
  HookReport,
  OutcomeCounts,
  PolicyField,
  RuleRow,
  SessionLink,
} from "../hook-report/report.js";
export { policyField } from "../hook-report/report.js";
/**
 * The hook actions: `fire hook install|uninstall|doctor`, the workbench's Portfolio screen
 * (`i`/`u`) and the local screen runner all install through core/deploy/install.ts, composed
 * once there (settings file, hook command, Codex trust, what the hook evaluates).
 */
export {
  defaultPluginDir,
  diagnoseHook,
  installHook,
  installHookPlugin,
  setHookMode,
  uninstallHook,
  uninstallHookPlugin,
};

export interface HookReportRequest {
  workspace: string;
  /** Log files and folders (searched recursively); default: the workspace's `.fire/`. */
  paths?: string[];
  /** The portfolio the logs come from (its never-fired rules are listed); default: the newest frozen. */
  portfolio?: string;
  thresholds?: Partial<ReportThresholds>;
  /** A trial passes at this reward (default: the workspace's `passThreshold`). */
  passThreshold?: number;
}

/** The workspace's `passThreshold` (its default when there is no config; a bad one is an error). */
function passThresholdOf(workspace: string, errors: InputError[]): number {
  const file = workspacePaths(workspace).config;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return 1;
  }
  try {
    return parseConfig(text, file).passThreshold;
  } catch (err) {
    if (err instanceof InputError) errors.push(err);
    else throw err;
    return 1;
  }
}

/**
 * `fire hook report` and the workbench's Field screen: the hook logs of one or many projects
 * or containers turned into per-rule numbers (core/hook-report/report.ts). Errors of the
 * portfolio come back with the logs' bad lines.
 */
export function fieldReport(req: HookReportRequest): HookReport & { portfolio?: string } {
  const paths = req.paths?.length ? req.paths : [workspacePaths(req.workspace).fire];
  const source = req.portfolio
    ? resolvePolicySource(req.workspace, req.portfolio)
    : defaultPortfolioDir(req.workspace);
  let errors: InputError[] = [];
  let policies: import("../policy/types.js").CompiledPolicy[] = [];
  if (source) ({ policies, errors } = loadPolicySource(source));
  const passThreshold = req.passThreshold ?? passThresholdOf(req.workspace, errors);
  const r = hookReport(paths, {
    policies,
    passThreshold,
    ...(req.thresholds ? { thresholds: req.thresholds } : {}),
  });
  return {
    ...r,
    errors: [...errors, ...r.errors],
    ...(source ? { portfolio: source } : {}),
  };
}

/** A harness name from the user, or undefined when it is neither `claude` nor `codex`. */
export function harnessNamed(name: string | undefined): Harness | undefined {
  return name === "claude" || name === "codex" ? name : undefined;
}

/**
 * `fire screen run --runner local`: installs each arm's hook into the attempt's fresh working
 * copy the way `fire hook install --project` does; baseline gets none (a copied one is
 * removed). Hook state stays in the trial folder, out of the copy.
 */
export function armHookInstaller(harness: Harness): HookInstaller {
  return async (hook, ctx) => {
    if (!ctx.workdir) return;
    const project = ctx.workdir;
    if (!hook.portfolio) uninstallHook({ harness, project });
    else
      installHook({
        harness,
        project,
        portfolio: hook.portfolio,
        log: hook.logFile,
        workspace: dirname(project),
      });
  };
}
