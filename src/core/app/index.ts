/**
 * The use-case layer: one function per user action, over one WorkspaceSession. CLI commands
 * and workbench hooks call these, so a number shown in both is computed once.
 */

export * from "./attempt.js";
export * from "./editor.js";
export * from "./export.js";
export * from "./hook.js";
export * from "./lifecycle.js";
export * from "./mining.js";
export * from "./plan.js";
export * from "./present.js";
export * from "./refine.js";
export * from "./replay.js";
export * from "./results.js";
export * from "./run.js";
export * from "./screens.js";
export * from "./session.js";
export * from "./sibling.js";
export * from "./workspace.js";
