/**
 * Presenters: pure text (or table rows) of a core/app result, for the CLI and the workbench
 * alike (the report's renderers are in results.ts, the export tables' in export.ts). They
 * compute nothing a front end could show differently; a front end formats a
 * result with these or with its own layout, and reaches the rest of core through core/app.
 */

export { resultBody, toolInputText, toolSummary } from "../compare/summary.js";
export { renderSuggestions, suggestedChanges } from "../mine/suggest-commands.js";
export { policyKey } from "../policy/key.js";
export { figuresLine, renderRefineResult } from "../refine/render.js";
export { renderReplayScreen } from "../screening/replay/render.js";
export { runSummary } from "../screening/results/run-summary.js";
export { harborProgressText } from "../screening/run/harbor-progress.js";
export { evidenceLines, withEvidence } from "../verdict/prose.js";
export { fmtReward } from "./format.js";
export * from "./present-mine.js";
export * from "./present-route.js";
