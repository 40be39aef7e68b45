/**
 * The two tiny condition mini-grammars, kept free of zod so the compile/evaluate path the
 * hook loads stays light: `probe > launch` (step ordering; `now` = the current step) and
 * `edits >= 2` (counter comparison).
 */
export const STEP_ORDER =
  /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(>=|<=|>|<|==)\s*([A-Za-z_][A-Za-z0-9_-]*)\s*$/;
export const COUNT_CMP = /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*(>=|<=|>|<|==|!=)\s*(\d+)\s*$/;

/** Escalated firings a rule may make per session unless its `escalate.cap` says otherwise. */
export const ESCALATE_CAP = 3;
