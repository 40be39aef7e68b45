import { join } from "node:path";
import { HOOK_OPTIONS, hookArgWords } from "../../deploy/hook-options.js";
import type { ArmName } from "../../model/arm.js";
import { shellQuote } from "../../shell-quote.js";
import type { ScreenPlan } from "../plan/schema.js";

/** What a runner tells the harness (and the user's template) about an arm's hook. */
export interface ArmHook {
  arm: ArmName;
  /** The arm's candidate folder (undefined for baseline: no hook). */
  portfolio?: string;
  /** Where the hook logs this attempt's decisions. */
  logFile: string;
  /** The full hook command line (empty for baseline). */
  command: string;
}

/**
 * Installs an arm's hook for the agent before an attempt (or a Harbor job). Supplied by
 * the caller (the hook engineer's `fire hook install`); without one the runner only
 * exports the FIRE_* variables and template placeholders below.
 */
export type HookInstaller = (
  hook: ArmHook,
  ctx: { workdir?: string; signal?: AbortSignal },
) => Promise<void>;

export function armHook(
  screenDir: string,
  plan: ScreenPlan,
  arm: ArmName,
  logFile: string,
  fireBin: readonly string[],
): ArmHook {
  const spec = plan.arms.find((a) => a.name === arm);
  if (!spec || spec.files.length === 0) return { arm, logFile, command: "" };
  const portfolio = join(screenDir, "arms", arm);
  const command = [...fireBin, "hook", ...hookArgWords(HOOK_OPTIONS, { portfolio, log: logFile })]
    .map(shellQuote)
    .join(" ");
  return { arm, portfolio, logFile, command };
}

/**
 * Environment every runner command gets. The hook runs one-shot (`FIRE_HOOK_RESIDENT=0`): a
 * resident evaluator answers first and appends its log line just after, and a cell is scored
 * from its hook log the moment its command ends, which would race the last line (a cell read
 * as "the policy hook never ran"). The decisions are the same evaluator's either way.
 */
export function hookEnv(screen: string, hook: ArmHook, replicate: number): Record<string, string> {
  return {
    FIRE_HOOK_RESIDENT: "0",
    FIRE_SCREEN: screen,
    FIRE_ARM: hook.arm,
    FIRE_REPLICATE: String(replicate),
    FIRE_PORTFOLIO: hook.portfolio ?? "",
    FIRE_HOOK_LOG: hook.logFile,
    FIRE_HOOK_COMMAND: hook.command,
  };
}
