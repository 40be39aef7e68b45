/**
 * The hook events fire is registered for, one list for every host: `fire hook install`
 * writes them into each harness's settings, and the failproofai export registers for them.
 * Free of zod, so the bundled hook hosts can read it.
 */
export type Harness = "claude" | "codex";

export const INSTALL_EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] as const;

/**
 * The events fire's hook is registered for, per harness: Claude Code also sends a failed
 * tool call's result as `PostToolUseFailure` and a sub-agent's end as `SubagentStop`; Codex
 * has neither.
 */
export const HARNESS_EVENTS: Record<Harness, readonly string[]> = {
  claude: [...INSTALL_EVENTS, "PostToolUseFailure", "SubagentStop"],
  codex: INSTALL_EVENTS,
};

/** Every event some harness sends fire's hook (what a host for any harness registers for). */
export const ALL_HOOK_EVENTS: readonly string[] = [
  ...new Set(Object.values(HARNESS_EVENTS).flat()),
];
