/**
 * The presenters of triage, mining and clusters (re-exported by present.ts): a module of
 * their own so `fire triage`, `fire clusters` and `fire cluster` load these and not every
 * presenter's module (policies, screens, runs).
 */

export { describeDecision } from "../mine/decisions.js";
export { reviewGist } from "../mine/label.js";
export { labelOutcome, outcomeCounts, outcomeProblem } from "../mine/outcome.js";
export {
  evidenceText,
  renderCluster,
  renderMine,
  renderMineSummary,
  renderTriage,
  renderValidation,
} from "../mine/render.js";
