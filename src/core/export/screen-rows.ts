import type { ScreenRow } from "../screening/results/row.js";
import type { Column } from "./tables.js";

/**
 * A run screen's stored results (`screens/<name>/results.jsonl`, the rows `fire report`
 * analyses), one per scored attempt (docs/commands.md).
 */
export const SCREEN_ROW_COLUMNS: readonly Column<ScreenRow>[] = [
  { name: "task", value: (r) => r.task },
  { name: "arm", value: (r) => r.arm },
  { name: "replicate", value: (r) => r.replicate ?? null },
  { name: "attempt", value: (r) => r.attempt },
  { name: "pass", value: (r) => r.pass },
  { name: "cohort", value: (r) => r.cohort ?? null },
  { name: "cost", value: (r) => r.cost ?? null },
  { name: "durationS", value: (r) => r.durationS ?? null },
  { name: "fired", value: (r) => r.fired ?? null },
  { name: "behavior", value: (r) => r.behavior ?? null },
  { name: "risky", value: (r) => r.risky ?? null },
  { name: "unscorable", value: (r) => r.unscorable ?? null },
  { name: "attemptId", value: (r) => r.attemptId ?? null },
  { name: "source", value: (r) => r.source ?? null },
  { name: "lineage", value: (r) => r.lineage ?? [] },
];
