import { stringify } from "csv-stringify/sync";
import type { Cluster } from "../mine/cluster.js";
import type { Label } from "../mine/label.js";

/** A value in an exported row: lists stay lists in JSONL and are `;`-joined in CSV. */
export type Cell = string | number | boolean | null | readonly string[];

/** One documented column of an export table (docs/commands.md lists them). */
export interface Column<T> {
  name: string;
  value: (row: T) => Cell;
  /** How CSV joins this column's list (default `;`; free text that may hold `;` uses a newline). */
  csvSeparator?: string;
}

export type ExportFormat = "jsonl" | "csv";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["jsonl", "csv"];

/** Labels of the last `fire mine` (cached labels with your decisions applied), one per attempt. */
export const LABEL_COLUMNS: readonly Column<Label>[] = [
  { name: "attemptId", value: (l) => l.attemptId },
  { name: "source", value: (l) => l.source },
  { name: "mechanismId", value: (l) => l.mechanismId ?? null },
  { name: "family", value: (l) => l.family ?? null },
  { name: "mechanism", value: (l) => l.mechanism },
  { name: "interventionPoint", value: (l) => l.interventionPoint },
  { name: "signature", value: (l) => l.signature ?? null },
  { name: "isProceduralLoss", value: (l) => l.isProceduralLoss },
  { name: "exclusion", value: (l) => l.exclusion },
  { name: "confidence", value: (l) => l.confidence },
  { name: "detectorIds", value: (l) => l.detectorIds },
  { name: "model", value: (l) => l.model ?? null },
  { name: "unlabelledReason", value: (l) => l.unlabelledReason ?? null },
  { name: "rationale", value: (l) => l.rationale },
];

/** The current mechanism clusters, as `fire clusters` shows them. */
export const CLUSTER_COLUMNS: readonly Column<Cluster>[] = [
  { name: "id", value: (c) => c.id },
  { name: "name", value: (c) => c.name },
  { name: "mechanismId", value: (c) => c.mechanismId ?? null },
  { name: "family", value: (c) => c.family ?? null },
  { name: "mechanism", value: (c) => c.mechanism },
  { name: "interventionPoint", value: (c) => c.interventionPoint },
  { name: "signature", value: (c) => c.signature ?? null },
  { name: "attempts", value: (c) => c.attemptIds.length },
  { name: "tasks", value: (c) => c.taskIds.length },
  { name: "attemptIds", value: (c) => c.attemptIds },
  { name: "taskIds", value: (c) => c.taskIds },
  { name: "detectors", value: (c) => c.detectors.map((d) => `${d.id}:${d.count}`) },
];

/**
 * The rows as text: JSONL (one object a line, keys in column order) or CSV (a header row,
 * RFC 4180 quoting by csv-stringify, lists joined by `;` (or the column's `csvSeparator`),
 * null as an empty field).
 */
export function renderTableExport<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  format: ExportFormat,
): string {
  if (format === "jsonl") {
    return rows
      .map(
        (r) => `${JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, c.value(r)])))}\n`,
      )
      .join("");
  }
  const csvCell = (v: Cell, sep: string): string | number | boolean =>
    v === null ? "" : Array.isArray(v) ? v.join(sep) : (v as string | number | boolean);
  return stringify(
    rows.map((r) => columns.map((c) => csvCell(c.value(r), c.csvSeparator ?? ";"))),
    { header: true, columns: columns.map((c) => c.name), cast: { boolean: (b) => String(b) } },
  );
}
