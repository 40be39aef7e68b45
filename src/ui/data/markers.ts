import type { MarkerKind } from "../../core/app/attempt.js";
import { resultBody, toolSummary } from "../../core/app/present.js";
import type { Event } from "../../core/model/attempt.js";
import { exitCodeFromOutput } from "../../core/model/exit-status.js";
import { printable } from "../../core/printable.js";

/** Markers are computed in core (src/core/mine/markers.ts); only their display here. */
export {
  attemptMarkers,
  type Marker,
  type MarkerKind,
  siblingsOf,
} from "../../core/app/attempt.js";

/** One-letter tags shown in the timeline's marker column (readable without colour). */
export const MARKER_TAG: Record<MarkerKind, string> = {
  capability: "C",
  "pre-failure": "!",
  detector: "D",
  fires: "F",
};

/**
 * Characters of a text a one-line row starts from: more than any terminal row shows. Ink
 * measures and truncates a row's whole text on every frame, so a 50 MB tool output handed to
 * it whole froze the workbench for most of a minute.
 */
export const ROW_TEXT_MAX = 2000;

/** The start of `s` as one printable line, at most ROW_TEXT_MAX characters. */
export function oneLine(s: string | undefined): string {
  return printable((s ?? "").slice(0, ROW_TEXT_MAX).replace(/\s+/g, " ").trim());
}

/** One line for an event in the timeline. */
export function eventLine(e: Event): string {
  switch (e.kind) {
    case "tool_call":
      return e.command !== undefined ? `$ ${oneLine(e.command)}` : oneLine(toolSummary(e));
    case "tool_result": {
      const code = e.exitCode ?? exitCodeFromOutput(e.output ?? "");
      return `${code !== undefined ? `exit ${code} ` : ""}${e.isError ? "error " : ""}${oneLine(resultBody(e.output ?? ""))}`;
    }
    case "hook":
      return `hook ${e.hook?.event ?? ""} ${e.hook?.decision ?? ""} ${oneLine(e.hook?.text)}`;
    case "stop":
      return "stop";
    default:
      return `${e.role ? `${e.role}: ` : ""}${oneLine(e.input)}`;
  }
}
