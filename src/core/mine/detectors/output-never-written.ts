import { commandOf, stopIndex, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

const VERB = "(?:write|save|create|produce|output|generate|store|put|emit|place|record|export)";
const FILE =
  "`?['\"]?((?:[\\w.~-]*/)*[\\w-]+\\.(?:txt|md|json|csv|py|sh|html|pdf|png|jpg|yaml|yml|xml|log|out|tex|js|ts|c|rs|go|sql|ics|db))\\b";
const NAMED_OUTPUT = new RegExp(`\\b${VERB}\\w*\\b[^.\\n]{0,80}?${FILE}`, "gi");
const TO_FILE = new RegExp(`\\b(?:to|into|in|as|at)\\s+${FILE}`, "gi");
const WRITE_MARKERS =
  /(>|\btee\b|\bcp\b|\bmv\b|\s-o\s|--output|open\(|write|savefig|to_csv|to_json|dump|touch|install)/;

/** Output files the task text asks for (after a writing verb). */
export function requiredOutputs(taskText: string): string[] {
  const found = new Set<string>();
  for (const m of taskText.matchAll(NAMED_OUTPUT)) if (m[1]) found.add(m[1]);
  for (const m of taskText.matchAll(TO_FILE)) {
    const before = taskText.slice(Math.max(0, (m.index ?? 0) - 80), m.index ?? 0);
    if (m[1] && new RegExp(`\\b${VERB}`, "i").test(before)) found.add(m[1]);
  }
  return [...found];
}

const base = (p: string): string => p.split("/").pop() ?? p;

/** A required output file (named in the task text) never written. */
export const outputNeverWritten: Detector = {
  id: "output.never-written",
  description: "a required output file named in the task text was never written",
  family: "stop-without-check",
  detect(attempt) {
    const required = requiredOutputs(attempt.taskText);
    if (required.length === 0) return [];
    const calls = toolCalls(attempt);
    const missing = required.filter((req) => {
      const b = base(req);
      return !calls.some((c) => {
        if (writtenPaths(c).some((p) => base(p) === b)) return true;
        const text = commandOf(c) ?? c.input ?? "";
        return text.includes(b) && WRITE_MARKERS.test(text);
      });
    });
    if (missing.length === 0) return [];
    return [{ eventIndices: [stopIndex(attempt)], reason: `never written: ${missing.join(", ")}` }];
  },
};
