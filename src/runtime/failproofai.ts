import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ALL_HOOK_EVENTS } from "../core/deploy/hook-events.js";
import { compilePolicy } from "../core/policy/compile.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import { runHook } from "./run-hook.js";

/**
 * The failproofai adapter: fire's hook host (runHook — the event check and mapping, the
 * session state store with its lock, state naming and corrupt-state handling, the hook log)
 * behind failproofai's custom-policy API. Bundled with everything it loads into ONE file
 * (`dist/runtime/failproofai.standalone.mjs`, node built-ins only) that `fire export --format
 * failproofai` copies beside the generated module, so failproofai runs the hook's own code.
 */

/** What failproofai hands a custom policy's fn (its documented context). */
export interface FailproofaiContext {
  eventType?: string;
  toolName?: string;
  toolInput?: unknown;
  payload?: Record<string, unknown>;
  session?: { sessionId?: string };
}

export type FailproofaiDecision =
  | { action: "allow" }
  | { action: "deny" | "instruct"; message: string };

/**
 * The events fire's portfolio is registered for: every event `fire hook install` registers
 * the native hook for (a failed tool result and a sub-agent's end included, or the state
 * would miss them).
 */
export const FAILPROOFAI_EVENTS = [...ALL_HOOK_EVENTS];

interface Sidecar {
  portfolio: string;
  manifestHash: string;
  policies: { key: string; sha256: string; text: string; linear: string; linearSha256: string }[];
}

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

/**
 * Reads the sidecar of an export and compiles its policies; throws when it does not belong
 * to the module (`manifestHash`) or a policy does not match its frozen SHA-256.
 */
export function loadSidecar(
  file: string,
  manifestHash: string,
  label: string,
): { portfolio: string; policies: CompiledPolicy[] } {
  const side = JSON.parse(readFileSync(file, "utf8")) as Sidecar;
  if (side.manifestHash !== manifestHash)
    throw new Error(
      `${label}: the sidecar does not belong to this module (re-export the portfolio)`,
    );
  const policies = side.policies.map((p) => {
    if (sha256(p.text) !== p.sha256)
      throw new Error(`${label}: policy ${p.key} does not match its frozen SHA-256`);
    if (sha256(p.linear) !== p.linearSha256)
      throw new Error(`${label}: policy ${p.key} does not match its linear form's SHA-256`);
    return compilePolicy(JSON.parse(p.linear), undefined, { admitted: true });
  });
  return { portfolio: side.portfolio, policies };
}

/**
 * One failproofai policy for a whole portfolio (failproofai stops at the first deny, so one
 * per fire policy would hide events from the later ones): each call is one hook event,
 * answered by runHook with the state in `stateDir` and the log beside it.
 */
export function failproofaiPolicy(opts: {
  sidecar: string;
  manifestHash: string;
  label: string;
  stateDir: string;
}) {
  const { portfolio, policies } = loadSidecar(opts.sidecar, opts.manifestHash, opts.label);
  const logFile = join(opts.stateDir, "fire-hook-log.jsonl");
  return {
    name: `fire/${portfolio}`,
    description: `fire portfolio ${portfolio}: ${policies.map((p) => p.key).join(", ")}`,
    events: FAILPROOFAI_EVENTS,
    async decide(ctx: FailproofaiContext): Promise<FailproofaiDecision> {
      const payload = ctx.payload ?? {};
      const input = {
        ...payload,
        session_id: payload.session_id ?? ctx.session?.sessionId ?? "default",
        hook_event_name: ctx.eventType ?? payload.hook_event_name,
        tool_name: ctx.toolName ?? payload.tool_name,
        tool_input: ctx.toolInput ?? payload.tool_input,
      };
      const answer = await runHook(
        { text: "", value: input },
        {
          loadPolicies: () => policies,
          stateDir: opts.stateDir,
          logFile,
          failClosed: false,
          env: process.env,
        },
      );
      const v = answer.entry.verdict;
      return v.action === "deny" || v.action === "instruct"
        ? { action: v.action, message: v.message ?? "" }
        : { action: "allow" };
    },
  };
}
