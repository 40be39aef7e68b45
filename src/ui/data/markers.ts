import type { MarkerKind } from "../../core/mine/markers.js";
import type { Event } from "../../core/model/attempt.js";
import { printable } from "../../core/printable.js";

/** Markers are computed in core (src/core/mine/markers.ts); only their display here. */
export {
  attemptMarkers,
  type Marker,
  type MarkerKind,
  siblingsOf,
} from "../../core/mine/markers.js";

/** One-letter tags shown in the timeline's marker column (readable without colour). */
export const MARKER_TAG: Record<MarkerKind, string> = {
  capability: "C",
  "pre-failure": "!",
  detector: "D",
  fires: "F",
};

/** One line for an event in the timeline. */
export function eventLine(e: Event): string {
  const first = (s: string | undefined) => printable((s ?? "").replace(/\s+/g, " ").trim());
  switch (e.kind) {
    case "tool_call":
      return `$ ${first(e.command ?? `${e.tool ?? "tool"} ${e.input ?? ""}`)}`;
    case "tool_result":
      return `${e.exitCode !== undefined ? `exit ${e.exitCode} ` : ""}${e.isError ? "error " : ""}${first(e.output)}`;
    case "hook":
      return `hook ${e.hook?.event ?? ""} ${e.hook?.decision ?? ""} ${first(e.hook?.text)}`;
    case "stop":
      return "stop";
    default:
      return `${e.role ? `${e.role}: ` : ""}${first(e.input)}`;
  }
}
