import type { CandidateInput } from "../policy/schema.js";
import { READERS } from "./shapes.js";

/**
 * The generic template (DESIGN.md: "stop without checking the evaluator-facing artifact"):
 * the task names an output artifact the grader reads; at stop, if it was written and not read
 * back, parsed or tested after the last write, instruct a check of it in the graded form.
 */
export const STOP_WITHOUT_CHECK: CandidateInput = {
  id: "tmpl-stop-without-check",
  version: 1,
  family: "stop-without-check",
  title: "Stop without checking the evaluator-facing artifact",
  chain: {
    state:
      "The agent wrote the artifact the grader reads and is stopping without reading, parsing or testing it after the last write.",
    intervention:
      "At stop, instruct a check of the artifact in the exact form the grader reads it.",
    behavior: "A read, parse or test of the artifact after its last write.",
    verifier: "The grader parses or compares the artifact.",
  },
  eligibility: {
    anyOf: [
      {
        pattern:
          "\\b(write|save|produce|create|generate|output|summari[sz]e|export|convert)s?\\b[^.\\n]{0,80}\\.(json|csv|tsv|xml|ya?ml|txt|md|html)\\b",
        flags: "i",
      },
      {
        pattern: "\\b(must|should)\\s+(validate|conform|parse)\\b",
        flags: "i",
      },
    ],
    noneOf: [],
  },
  track: [
    {
      id: "write",
      at: "tool",
      when: {
        any: [
          { writes: "." },
          { command: { pattern: "(^|[^>&0-9])>{1,2}\\s*[^&\\s|]|\\btee\\b|\\bsed\\s+-i" } },
        ],
      },
      record: "write",
    },
    {
      id: "check",
      at: "tool",
      when: {
        any: [
          {
            steps: "now > write",
            command: { pattern: `\\b(${READERS})\\b` },
          },
          // written and read back in one command: `… > out.json && jq . out.json`
          { command: { pattern: `(>|\\btee\\b)[^;&|]{1,200}(&&|;)\\s*(${READERS})\\b` } },
        ],
      },
      record: "check",
    },
  ],
  rules: [
    {
      id: "check-artifact",
      at: "stop",
      when: { recorded: "write", not: { steps: "check >= write" } },
      action: "instruct",
      message:
        "Before you stop: the grader will read the file you produced. Read it back now and check it the way the grader will (parse it in its stated format, compare every required field, count and value with the task's requirements). Fix anything that does not match, then stop.",
    },
  ],
  behavior: { steps: "check >= write" },
};
