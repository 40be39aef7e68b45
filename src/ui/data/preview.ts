import type { GroupCount } from "../../core/replay/preview.js";

/** Preview counts come from core (src/core/replay/preview.ts); only their display text here. */
export {
  type GroupCount,
  type Preview,
  type PreviewContext,
  type PreviewCounts,
  previewCounts,
  previewText,
} from "../../core/replay/preview.js";

/** "2/2" style text of a group. */
export const fmtGroup = (g: GroupCount): string => `${g.fired}/${g.total}`;
