import type { Attempt, Event } from "../../model/attempt.js";
import { parseInput } from "./shell.js";

/**
 * A terminal agent's harness (Terminus-2) warning that a command of the batch it just typed
 * did not end with a newline, so the next command was typed onto the same line.
 */
const JOINED = /Command (\d+) should end with newline when followed by another command/g;
/**
 * Keystrokes that end in the two characters backslash and `n` where a newline was meant: the
 * line is typed, not submitted.
 */
const LITERAL_NEWLINE = /\\n$/;
/** Keystrokes that submit the line: a newline at the end, or tmux's Enter key. */
const SUBMITS = /(?:\r|\n)$|^(?:Enter|C-m|C-j|KPEnter)$/;
/**
 * A tmux key name sent as a key press, not typed text (`C-c`, `M-x`, `Escape`, `Up`, `F5`):
 * the harness warns about it too, but it types nothing onto the line.
 */
const KEY_NAME =
  /^(?:[CMS]-\S|Escape|Enter|Tab|BTab|BSpace|Space|Up|Down|Left|Right|Home|End|PageUp|PageDown|PPage|NPage|IC|DC|F\d{1,2})$/;
/** Keys that throw the typed line away (the shell's interrupt, its line kill). */
const DISCARDS = /^(?:C-c|C-u)$/;

const memo = new WeakMap<Attempt, ReadonlySet<number>>();

/**
 * The keystroke calls that never ran as written because the harness typed them onto one
 * terminal line with their neighbours: from a command the harness says did not end with a
 * newline, every keystroke call after it up to the one that submits the line (possibly in a
 * later batch), or to the end of the run when none does; so too from a command whose
 * keystrokes end in a literal backslash-n where the newline was meant. What the shell then ran (if anything)
 * was their concatenation, not any of them; a check in it checked nothing, a write in it did not
 * write what it says. Only these two start such a line: keystrokes without a newline are also
 * how an agent answers a prompt or drives an editor. Indices of tool calls.
 */
export function typedTogether(a: Attempt): ReadonlySet<number> {
  const known = memo.get(a);
  if (known) return known;
  const out = new Set<number>();
  let pending: number[] = [];
  let batch: Event[] = [];
  const keysOf = (e: Event): string | undefined => {
    const k = parseInput(e)?.keystrokes;
    return typeof k === "string" ? k : undefined;
  };
  const close = (result: Event | undefined) => {
    const warned = new Set<number>();
    for (const m of (result?.output ?? "").matchAll(JOINED)) warned.add(Number(m[1]));
    batch.forEach((call, i) => {
      const keys = keysOf(call);
      if (keys === undefined) return;
      if (pending.length > 0) {
        if (DISCARDS.test(keys)) {
          for (const p of pending) out.add(p);
          pending = [];
          return;
        }
        pending.push(call.index);
        if (SUBMITS.test(keys)) {
          for (const p of pending) out.add(p);
          pending = [];
        }
        return;
      }
      if (
        (warned.has(i + 1) || LITERAL_NEWLINE.test(keys)) &&
        !SUBMITS.test(keys) &&
        !KEY_NAME.test(keys.trim())
      )
        pending = [call.index];
    });
    batch = [];
  };
  for (const e of a.events) {
    if (e.kind === "tool_call") batch.push(e);
    else if (batch.length > 0) close(e.kind === "tool_result" ? e : undefined);
  }
  if (batch.length > 0) close(undefined);
  // a line never submitted never ran
  for (const p of pending) out.add(p);
  memo.set(a, out);
  return out;
}
