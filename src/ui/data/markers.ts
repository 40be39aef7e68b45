import { resultBody, toolSummary } from "../../core/compare/summary.js";
import type { MarkerKind } from "../../core/mine/markers.js";
import type { Event } from "../../core/model/attempt.js";
import { exitCodeFromOutput } from "../../core/model/exit-status.js";
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
      return e.command !== undefined ? `$ ${first(e.command)}` : first(toolSummary(e));
    case "tool_result": {
      const code = e.exitCode ?? exitCodeFromOutput(e.output ?? "");
      return `${code !== undefined ? `exit ${code} ` : ""}${e.isError ? "error " : ""}${first(resultBody(e.output ?? ""))}`;
    }
    case "hook":
      return `hook ${e.hook?.event ?? ""} ${e.hook?.decision ?? ""} ${first(e.hook?.text)}`;
    case "stop":
      return "stop";
    default:
      return `${e.role ? `${e.role}: ` : ""}${first(e.input)}`;
  }
}
