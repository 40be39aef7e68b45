import type { HookLogEntry } from "../../hook-log.js";
import { ARM_NAMES, type ArmName, BASELINE_ARM } from "../../model/arm.js";

/** What the integrity check knows about one attempt's hook activity. */
export interface HookEvidence {
  /** Hook calls seen for PreToolUse (Claude Code / Codex name). */
  preToolUse: number;
  firings: number;
  /** A policy load error or hook fault reported by the hook. */
  loadError?: string;
}

/** Summarises hook-log entries of one attempt. */
export function hookEvidence(entries: readonly HookLogEntry[]): HookEvidence {
  const ev: HookEvidence = { preToolUse: 0, firings: 0 };
  for (const e of entries) {
    if (e.event === "PreToolUse") ev.preToolUse++;
    ev.firings += e.firings.length;
    if (e.error && ev.loadError === undefined) ev.loadError = e.error;
  }
  return ev;
}

/** Arms that run a hook (every panel arm but baseline): they must show live hook activity. */
export const HOOKED_ARMS: readonly ArmName[] = ARM_NAMES.filter((a) => a !== BASELINE_ARM);

/**
 * Integrity before scoring: a policy-arm (or other hooked arm) attempt with no PreToolUse events
 * or a policy load error, or a baseline attempt with firings, is unscorable. Returns the
 * reason, or undefined when the attempt can be scored. `evidence` undefined = no hook
 * log was found for the attempt.
 */
export function integrityProblem(
  arm: ArmName,
  evidence: HookEvidence | undefined,
): string | undefined {
  if (HOOKED_ARMS.includes(arm)) {
    if (!evidence) return "no hook log: the policy hook never ran";
    if (evidence.loadError) return `policy load error: ${evidence.loadError}`;
    if (evidence.preToolUse === 0) return "no PreToolUse hook events: the policy hook never ran";
  }
  if (arm === BASELINE_ARM && evidence && evidence.firings > 0) {
    return `baseline attempt has ${evidence.firings} policy firing(s)`;
  }
  return undefined;
}
