import type { GroupAttempts, GroupCount } from "../../core/app/editor.js";

/** Preview counts come from core (src/core/screening/replay/preview.ts); only their display text here. */
export {
  type GroupAttempts,
  type GroupCount,
  type Preview,
  type PreviewContext,
  type PreviewCounts,
  previewCounts,
  previewText,
} from "../../core/app/editor.js";

/** "2/2" style text of a group. */
export const fmtGroup = (g: GroupCount): string => `${g.fired}/${g.total}`;

/** The attempt list a preview count opens: the fired ones when any, else all it counts over. */
export function previewSet(
  name: string,
  count: GroupCount | number,
  group: GroupAttempts,
): { title: string; ids: string[] } {
  const shown = typeof count === "number" ? String(count) : fmtGroup(count);
  if (group.fired.length)
    return { title: `${name} ${shown} · ${group.fired.length} attempts fired`, ids: group.fired };
  const none = typeof count === "number" ? "" : " · none fired";
  return { title: `${name} ${shown}${none} · all ${group.all.length} attempts`, ids: group.all };
}
