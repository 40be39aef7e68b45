import type { Event } from "../../model/attempt.js";
import { baseName, writtenContent } from "./paths.js";
import { commandOf, parseInput, segments } from "./shell.js";

/*
 * What a tool call did to test modules, as far as the call shows it: an edit tool's old and new
 * text, a patch's `-` and `+` lines, a shell deletion, move, line cut or substitution, a
 * whole-file write against the content the run itself wrote before (check.edited-test-to-pass).
 */

/** A source file of the common languages: what "the code" and a test module are written in. */
export const CODE_FILE =
  /\.(?:py|[cm]?[jt]sx?|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|exs?|vue|svelte)$/;
/** A tests folder anywhere in a path. */
const TEST_DIR = /(?:^|\/)(?:tests?|__tests__|specs?)\//;
/** A test module by the naming rules of the common runners. */
const TEST_NAME =
  /^test_[^/]+\.py$|^[^/]+_test\.(?:py|go|rb|exs?)$|^[^/]+\.(?:test|spec)(?:-d)?\.[cm]?[jt]sx?$|^[^/]+Tests?\.(?:java|kt|cs|php|swift)$/;

/**
 * A test module: a source file in a tests folder, or one named as the common runners name test
 * modules (`x.test.ts`, `x.spec.js`, `test_x.py`, `x_test.go`, `XTest.java`). A fixture or data
 * file in a tests folder is no test module, nor is `src/ab-test.ts`.
 */
export function isTestFile(path: string): boolean {
  if (path.includes("__pycache__") || !CODE_FILE.test(path)) return false;
  return TEST_DIR.test(path) || TEST_NAME.test(baseName(path));
}

/** What one call did to one test module, as far as the call shows it. */
export interface TestChange {
  path: string;
  removed: string;
  added: string;
  /** The whole file went away (`rm`, a patch's `*** Delete File`). */
  deleted?: boolean;
  /** Lines taken out by a pattern or range (`sed -i '/…/d'`): their text is not known. */
  linesCut?: boolean;
  /** A substitution (`sed -i 's/OLD/NEW/'`): `removed` is OLD, `added` NEW, as literal text. */
  substituted?: boolean;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The sections of an `apply_patch` text, per file: its `-` and `+` lines. */
function patchChanges(patch: string): TestChange[] {
  const out: TestChange[] = [];
  let cur: TestChange | undefined;
  for (const line of patch.split("\n")) {
    const head = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line.trim());
    if (head) {
      cur = { path: (head[2] ?? "").trim(), removed: "", added: "" };
      if (head[1] === "Delete") cur.deleted = true;
      out.push(cur);
      continue;
    }
    if (!cur || line.startsWith("---") || line.startsWith("+++")) continue;
    if (line.startsWith("-")) cur.removed += `${line.slice(1)}\n`;
    else if (line.startsWith("+")) cur.added += `${line.slice(1)}\n`;
  }
  return out;
}

/** `rm …` / `git rm …`: the words after it (options dropped later). Linear: one greedy run. */
const RM = /^(?:sudo\s+)?(?:git\s+)?rm\s+([^;&|<>]+)/;
/** `sed -i[…] [-e] '/pattern/d' f…` or `sed -i '5,9d' f…`: lines cut from the files. */
const SED_CUT =
  /^sed\s+(?:-[^\s']+\s+)*(['"])(?:\/(?:[^/\\\n]|\\.)*\/|\d+(?:,\d+)?)d\1((?:\s+[^\s;&|<>]+)+)$/;
/**
 * `sed -i '[N[,M]]s/OLD/NEW/g' f…` (any delimiter, an optional line address): OLD and NEW as
 * groups 3 and 4 (still escaped), the files as group 5. Each alternative of a part starts with
 * its own character (a backslash or not), so the match is linear.
 */
const SED_SUB =
  /^sed\s+(?:-[^\s']+\s+)*(['"])(?:\d+(?:,(?:\d+|\$))?|\$)?s([^\w\s\\])((?:(?!\2)[^\\]|\\.)*)\2((?:(?!\2)[^\\]|\\.)*)\2\w*\1((?:\s+[^\s;&|<>]+)+)$/;
/** A sed pattern's literal text: escapes taken off (`Jan\$` → `Jan$`). */
const literal = (pattern: string): string => pattern.replace(/\\n/g, "\n").replace(/\\(.)/g, "$1");
const files = (words: string): string[] =>
  words
    .trim()
    .split(/\s+/)
    .filter((w) => w && !w.startsWith("-") && !/^\d*>/.test(w));

/** A `sed -i` substitution of one shell segment, per file it names: OLD and NEW as literal text. */
export interface Substitution {
  path: string;
  from: string;
  to: string;
}

/** The in-place `sed` substitutions of a command (`sed -i '183s/a/b/' f`), on any file. */
export function substitutions(cmd: string): Substitution[] {
  const out: Substitution[] = [];
  for (const seg of segments(cmd)) {
    const s = seg.trim();
    if (!/\s-[a-zA-Z]*i/.test(s)) continue;
    const sub = SED_SUB.exec(s);
    if (sub)
      for (const p of files(sub[5] ?? ""))
        out.push({ path: p, from: literal(sub[3] ?? ""), to: literal(sub[4] ?? "") });
  }
  return out;
}

/** What a shell call did to test modules: deleted them, cut lines or substituted text. */
function shellChanges(cmd: string): TestChange[] {
  const out: TestChange[] = [];
  for (const seg of segments(cmd)) {
    const s = seg.trim();
    const rm = RM.exec(s);
    // `git rm --cached` keeps the file on disk
    if (rm && !/\s--cached\b/.test(s))
      for (const p of files(rm[1] ?? ""))
        if (isTestFile(p)) out.push({ path: p, removed: "", added: "", deleted: true });
    if (!/\s-[a-zA-Z]*i/.test(s)) continue;
    const cut = SED_CUT.exec(s);
    if (cut)
      for (const p of files(cut[2] ?? ""))
        if (isTestFile(p)) out.push({ path: p, removed: "", added: "", linesCut: true });
  }
  for (const sub of substitutions(cmd))
    if (isTestFile(sub.path))
      out.push({ path: sub.path, removed: sub.from, added: sub.to, substituted: true });
  return out;
}

/** `mv a b` / `cp a b` (options aside): the source and the target. */
const MOVE = /^(?:sudo\s+)?(?:git\s+)?(?:mv|cp)\s+([^;&|<>]+)/;

/**
 * A test module a shell move or copy filled from a file whose content the run wrote: what it
 * now holds was added (a test moved or renamed keeps its titles).
 */
function movedInto(cmd: string, known: ReadonlyMap<string, string>): TestChange[] {
  const out: TestChange[] = [];
  for (const seg of segments(cmd)) {
    const m = MOVE.exec(seg.trim());
    const words = m ? files(m[1] ?? "") : [];
    const [from, to] = words;
    if (words.length !== 2 || !from || !to) continue;
    if (isTestFile(to)) out.push({ path: to, removed: "", added: known.get(from) ?? "" });
    // a test module moved out of the runner's reach (`mv test_x.py test_x.py.bak`)
    else if (isTestFile(from) && /^(?:sudo\s+)?(?:git\s+)?mv\s/.test(seg.trim()))
      out.push({ path: from, removed: known.get(from) ?? "", added: "", deleted: true });
  }
  return out;
}

/**
 * An editor's old and new text under each agent's names: Claude Code and Gemini CLI
 * (`old_string`), SWE-agent and OpenHands (`old_str`), OpenCode (`oldString`), OpenClaw and pi
 * (`oldText`), other editors (`old_text`).
 */
const OLD_TEXT = ["old_string", "old_str", "oldString", "oldText", "old_text"];
const NEW_TEXT = ["new_string", "new_str", "newString", "newText", "new_text"];
const firstText = (e: Record<string, unknown>, keys: readonly string[]): string =>
  keys.map((k) => str(e[k])).find((v) => v !== "") ?? "";

/** The old and new text pairs of an edit tool's input (Edit, MultiEdit, str_replace). */
function editPairs(j: Record<string, unknown> | undefined): { from: string; to: string }[] {
  const edits = Array.isArray(j?.edits) ? (j.edits as Record<string, unknown>[]) : [j ?? {}];
  return edits
    .map((e) => ({ from: firstText(e, OLD_TEXT), to: firstText(e, NEW_TEXT) }))
    .filter((p) => p.from !== "" || p.to !== "");
}

/** A patch text a tool call carries (`apply_patch`: its input, `patch`, or OpenCode's `patchText`). */
function patchOf(call: Event, j: Record<string, unknown> | undefined): string {
  const cmd = commandOf(call);
  if (cmd !== undefined) return cmd.includes("*** Begin Patch") ? cmd : "";
  const text = str(j?.input) || str(j?.patch) || str(j?.patchText) || (j ? "" : (call.input ?? ""));
  return text.includes("*** Begin Patch") ? text : "";
}

/**
 * The changes a call made to test modules, with the text they took out when the call shows it
 * (an edit tool's old and new strings, a patch, a whole-file write or a deletion against the
 * content the run itself wrote before). `known` holds the latest content the run wrote per path.
 */
export function testChanges(call: Event, known: ReadonlyMap<string, string>): TestChange[] {
  const j = commandOf(call) === undefined ? parseInput(call) : undefined;
  const patch = patchOf(call, j);
  const cmd = commandOf(call);
  const raw = patch
    ? patchChanges(patch)
    : cmd !== undefined
      ? [...shellChanges(cmd), ...movedInto(cmd, known)]
      : editChanges(call, j, known);
  return raw
    .filter((c) => isTestFile(c.path))
    .map((c) => {
      // a deleted file whose content the run wrote: its tests are what went
      const before = c.deleted ? known.get(c.path) : undefined;
      return before === undefined ? c : { ...c, removed: before };
    });
}

function editChanges(
  call: Event,
  j: Record<string, unknown> | undefined,
  known: ReadonlyMap<string, string>,
): TestChange[] {
  const path =
    str(j?.file_path) || str(j?.path) || str(j?.filePath) || str(j?.file) || str(j?.filename);
  if (!path) return [];
  const pairs = editPairs(j);
  if (pairs.length > 0)
    return [
      {
        path,
        removed: pairs.map((p) => p.from).join("\n"),
        added: pairs.map((p) => p.to).join("\n"),
      },
    ];
  const content = writtenContent(call);
  if (content === undefined) return [];
  return [{ path, removed: known.get(path) ?? "", added: content }];
}

/** Keeps the latest content the run wrote per path (a whole write, or an edit applied to it). */
function rememberEdit(call: Event, paths: readonly string[], known: Map<string, string>): void {
  const content = writtenContent(call);
  if (content !== undefined) {
    for (const p of paths) known.set(p, content);
    return;
  }
  const j = commandOf(call) === undefined ? parseInput(call) : undefined;
  const path = str(j?.file_path) || str(j?.path) || str(j?.filePath);
  const before = path ? known.get(path) : undefined;
  // a shell write or a patch changed the file in a way not followed here: its content is unknown
  for (const p of paths) if (p !== path) known.delete(p);
  if (before === undefined) return;
  const pairs = editPairs(j);
  // an edit that shows no old and new text (a diff, a range) changed it beyond following
  if (pairs.length === 0) {
    known.delete(path);
    return;
  }
  let text = before;
  for (const { from, to } of pairs) {
    if (!from || !text.includes(from)) {
      known.delete(path);
      return;
    }
    text = text.replace(from, () => to);
  }
  known.set(path, text);
}

/**
 * Follows the latest content the run wrote per path after a call that ran: an editor tool's
 * whole content, or its old and new text applied; any other write (a shell's, a patch, a diff
 * or a range edit) leaves the content unknown.
 */
export function remember(call: Event, paths: readonly string[], known: Map<string, string>): void {
  // an editor tool's call (not a shell's) hands over its content or edits: followed
  if (call.tool && commandOf(call) === undefined) rememberEdit(call, paths, known);
  else for (const p of paths) known.delete(p);
}
