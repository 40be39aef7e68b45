import { commandOf, outputOf, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** A count of tokens in one sentence, in a task about text: a dataset, a corpus, a tokenizer. */
const TOKEN_TASK =
  /\btokens?\b(?:[^.\n]|\.(?=\S)){0,300}\b(count|total|number)\b|\b(count|total|number)\b(?:[^.\n]|\.(?=\S)){0,300}\btokens?\b/i;
const TEXT_TASK = /\b(tokeni[sz]\w*|dataset|corpus|vocab\w*|text)\b/i;
const WRITE_INT = /\becho\s+(\d+)\s*>+\s*\S+|\bprintf\s+['"]?%?d?\\?n?['"]?\s*(\d+)\s*>+/;
const SUM_RE = /\b\d+\s*\+\s*\d+\b/;

/** Backticked names in the sentences of the task that talk about fields. */
export function countedFields(taskText: string): string[] {
  const names = new Set<string>();
  for (const sentence of taskText.split(/(?<=[.!?])\s+/)) {
    if (!/\bfields?\b/i.test(sentence)) continue;
    for (const m of sentence.matchAll(/`([A-Za-z_][\w.-]*)`/g)) if (m[1]) names.add(m[1]);
  }
  return [...names];
}

/** Multi-field token count answered without reconciling the fields into the final integer. */
export const tokenFieldsUnreconciled: Detector = {
  id: "dataset.fields-unreconciled",
  taskRole: "the task asks for a count over several fields",
  description:
    "multi-field token count written without a per-field reconciliation to the final integer",
  family: "dataset-token-accounting",
  detect(attempt) {
    const task = attempt.taskText;
    if (!TOKEN_TASK.test(task) || !TEXT_TASK.test(task) || countedFields(task).length < 2)
      return [];
    const calls = toolCalls(attempt);
    const writes = calls.filter((c) => WRITE_INT.test(commandOf(c) ?? ""));
    const last = writes.at(-1);
    if (!last) return [];
    const m = WRITE_INT.exec(commandOf(last) ?? "");
    const n = m?.[1] ?? m?.[2] ?? "";
    const reconciled = calls.some((c) => {
      if (c.index > last.index) return false;
      const cmd = commandOf(c) ?? "";
      const out = outputOf(attempt, c);
      return SUM_RE.test(cmd) || (/\btotal\b/i.test(out) && out.includes(n) && /sum\(/.test(cmd));
    });
    if (reconciled) return [];
    return [
      {
        eventIndices: [last.index],
        reason: `wrote ${n} without summing the ${countedFields(attempt.taskText).length} counted fields`,
      },
    ];
  },
};
