/**
 * The use-case layer: one function per user action, over one WorkspaceSession. CLI commands
 * and workbench hooks call these, so a number shown in both is computed once.
 */

/** Triage, one path: `fire triage` and the workbench both call these. */
export { loadTriageInputs, triageView } from "../mine/triage-view.js";
export * from "./hook.js";
export * from "./lifecycle.js";
export * from "./mining.js";
export * from "./plan.js";
export * from "./refine.js";
export * from "./results.js";
export * from "./run.js";
export * from "./screens.js";
export * from "./session.js";
export * from "./sibling.js";
