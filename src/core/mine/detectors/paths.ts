import { failingTests } from "../../ingest/verifier-tests.js";
import { type Attempt, type Event, verifierFileLine } from "../../model/attempt.js";
import { EMPTY_SUBMISSION, SUBMISSION_OPENING_LINES } from "../../model/submission.js";
import { isTimeoutType } from "../../model/time-limit.js";
import {
  callFailed,
  commandOf,
  outputOf,
  resultOf,
  segments,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import { withoutTracebackCode } from "./traceback-code.js";

/**
 * Paths and file names in free text, in any language: task texts in Chinese, Japanese
 * or English name files the same way (`answer.txt`, `docs/`, `/app/out.json`). A token
 * counts when it has a file extension or a directory slash; CJK punctuation and quotes
 * around it are not part of it. A token that goes on with `.name` is a piece of a dotted
 * code name (`connection.features.can_rollback_ddl`), not a file.
 */
const PATH_TOKEN =
  /(?<![\w./~-])(~?\/?(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}|~?\/?(?:[\w.-]+\/)+[\w.-]*)(?![\w/-]|\.\w)/g;
/** Extension-like endings that are not files (versions, domains, abbreviations). */
const NOT_FILE =
  /^(?:\d+(?:\.\d+)+|(?:e\.g|i\.e|etc|vs|mr|dr|no)\.?|[\w-]+\.(?:com|org|net|io|dev|ai|example)(?:\/.*)?)$/i;

function clean(tok: string): string {
  return tok.replace(/[.,;:!?)\]}'"`]+$/, "");
}

/** A quoted token (backticks, quotes, CJK brackets) that looks like a path, in any script. */
const QUOTED = /[`"'「『“]([^`"'」』”\s]{1,200})[`"'」』”]/gu;
const QUOTED_PATH = /^(?:~?\/)?(?:[^/\s]+\/)*[^/\s]*(?:\.[A-Za-z][A-Za-z0-9]{0,7}|\/)$/u;

function urlBefore(text: string, at: number): boolean {
  const start = text.lastIndexOf(" ", at) + 1;
  return /:\/\/|^https?:/.test(text.slice(start, at));
}

/** Every path or file name a text names, in order, without duplicates. */
export function namedPaths(text: string): string[] {
  const out: string[] = [];
  const add = (tok: string, at: number) => {
    if (tok.length < 3 || NOT_FILE.test(tok) || urlBefore(text, at)) return;
    if (/^\/+$/.test(tok) || /^\.+\/?$/.test(tok) || /^\d+\/$/.test(tok)) return;
    if (!out.includes(tok)) out.push(tok);
  };
  for (const m of text.matchAll(QUOTED)) {
    const tok = clean(m[1] ?? "");
    if (QUOTED_PATH.test(tok) && /[./]/.test(tok)) add(tok, m.index ?? 0);
  }
  for (const m of text.matchAll(PATH_TOKEN)) {
    const tok = clean(m[1] ?? "");
    // A piece of a quoted non-ASCII path already taken whole.
    if (out.some((o) => o !== tok && o.includes(tok))) continue;
    add(tok, m.index ?? 0);
  }
  return out;
}

/** Names of files (not directories) a text names. */
export function namedFiles(text: string): string[] {
  return namedPaths(text).filter((p) => !p.endsWith("/") && baseName(p).includes("."));
}

export function baseName(p: string): string {
  return p.replace(/\/+$/, "").split("/").pop() ?? p;
}

/** The extension of a path, lower case with the dot (`.ics`), or "". */
export function extOf(p: string): string {
  const b = baseName(p);
  const dot = b.lastIndexOf(".");
  return dot > 0 ? b.slice(dot).toLowerCase() : "";
}

/**
 * Whether path `written` is the same file as the named path `named` (suffix match). A
 * relative written path is relative to a working folder the trace may not show: it is the
 * named file when the named path ends with it (`out.py` written in the folder of `/app/out.py`).
 */
export function samePath(named: string, written: string): boolean {
  const n = named.replace(/^\.?\//, "").replace(/\/+$/, "");
  const w = written.replace(/\/+$/, "");
  if (w === n || w.endsWith(`/${n}`)) return true;
  if (/^[/~$]/.test(written) || w.includes("..")) return false;
  const rel = w.replace(/^(?:\.\/)+/, "");
  return rel.length > 0 && named.endsWith(`/${rel}`);
}

/** Every path any tool call of the attempt wrote (write/edit tools, shell writes). */
export function allWrites(a: Attempt): { path: string; call: Event }[] {
  return toolCalls(a).flatMap((c) => writtenPaths(c).map((path) => ({ path, call: c })));
}

/** The text a tool call was given (its shell command, else its raw input). */
export function callText(ev: Event): string {
  return commandOf(ev) ?? ev.input ?? "";
}

const NOT_FOUND =
  /ENOENT|no such file or directory|does not exist|not found|cannot find|can't open|找不到|不存在|見つかりません/i;

/**
 * Calls whose result says a path was not found. What a call printed is often content (a
 * search tool's code snippets, a file that mentions "does not exist"): the words count when
 * the call failed or when they open its output (its first line).
 */
export function notFoundCalls(a: Attempt): Event[] {
  return toolCalls(a).filter((c) => {
    const out = outputOf(a, c);
    if (!NOT_FOUND.test(out) || /command not found/i.test(out)) return false;
    if (toolFailed(a, c)) return true;
    const first = out.trimStart().split("\n", 1)[0] ?? "";
    return NOT_FOUND.test(first.slice(0, 300));
  });
}

/** A file name in a line of output: a word with an extension (`out.txt`, `build.sh`). */
const FILE_WORD = /[\w-]\.[A-Za-z][\w]{0,7}\b/;

/**
 * Whether a call's not-found message is about `name` (a base name): a line of its output
 * that says not found names it, or names no file at all ("not found" of a `test -f` echo). A
 * build that ran and reported another file missing says nothing of the script it ran.
 */
export function notFoundAbout(a: Attempt, call: Event, name: string): boolean {
  for (const line of outputOf(a, call).split("\n")) {
    if (!NOT_FOUND.test(line) || /command not found/i.test(line)) continue;
    if (line.includes(name) || !FILE_WORD.test(line)) return true;
  }
  return false;
}

/** Programs and tools whose output lists directory entries. */
const LISTING_PROGRAM = /^(?:sudo\s+)?(?:ls|ll|dir|find|fd|tree|stat|du|locate|file)\b/;
const LISTING_TOOL = /^(?:ls|list|list_dir|list_directory|list_files|glob|find|find_files)$/i;

/** Whether a call lists directory entries (its output shows which files exist). */
export function isListing(c: Event): boolean {
  if (c.tool && LISTING_TOOL.test(c.tool)) return true;
  const cmd = commandOf(c);
  return cmd !== undefined && segments(cmd).some((seg) => LISTING_PROGRAM.test(seg));
}

/** Output of a search that found nothing: empty, or a tool's placeholder for no output. */
const NOTHING = /^\s*(?:\((?:no output|no content|empty)\))?\s*$/i;

/** Listings and searches (`find … -name`, `ls`, a glob tool) that found nothing at all. */
export function emptySearches(a: Attempt): Event[] {
  return toolCalls(a).filter((c) => isListing(c) && NOTHING.test(outputOf(a, c)));
}

/** Programs that print a file's content (the file was there when they printed it). */
const READER_PROGRAM =
  /^(?:sudo\s+)?(?:cat|head|tail|less|more|nl|bat|xxd|hexdump|od|sha256sum|md5sum|wc)\b/;
/** Tools that read a file (Read, read_file, view, open_file, cat). */
const READER_TOOL =
  /^(?:read|read_?file|view|view_?file|open|open_?file|cat|readfile|readtoolcall)$/i;

/**
 * Whether the agent found the file in place, by the strictest evidence: a call that succeeded
 * (no error, exit 0 where one is known) and either printed the file (a reader program or a read
 * tool naming it) or listed it among a folder's entries; never when the verifier reports it
 * missing. A call that merely mentions the name (`test -f … || echo no`, `grep -r name`, a
 * build that failed) shows nothing.
 */
export function foundInPlace(a: Attempt, named: string): boolean {
  if (verifierMissing(a).paths.some((m) => samePath(m, named) || baseName(m) === baseName(named)))
    return false;
  const b = baseName(named);
  for (const c of toolCalls(a)) {
    const r = resultOf(a, c);
    if (r?.isError || (r?.exitCode !== undefined && r.exitCode !== 0)) continue;
    const out = outputOf(a, c);
    if (!out.trim() || NOT_FOUND.test(out.slice(0, 300)) || writtenPaths(c).length) continue;
    if (isListing(c)) {
      if (new RegExp(`(^|[\\s/])${escapeRe(b)}(\\s|$)`, "m").test(out)) return true;
      continue;
    }
    const cmd = commandOf(c);
    const reads = cmd
      ? segments(cmd).some((seg) => READER_PROGRAM.test(seg) && seg.includes(b))
      : !!c.tool && READER_TOOL.test(c.tool) && callText(c).includes(b);
    if (reads) return true;
  }
  return false;
}

/** Whether the agent saw the path exist: a successful read of it, or a listing that shows it. */
export function seenExisting(
  a: Attempt,
  named: string,
  before = Number.POSITIVE_INFINITY,
): boolean {
  const b = baseName(named);
  for (const c of toolCalls(a)) {
    if (c.index >= before) break;
    const r = resultOf(a, c);
    // of a pane shared by a batch of commands, only what this command printed
    const out = outputOf(a, c);
    if (!out || NOT_FOUND.test(out.slice(0, 300))) continue;
    if (r?.isError) continue;
    if (callText(c).includes(b) && out.length > 0 && !writtenPaths(c).length) return true;
    // a name in another file's content (a test that mentions the deliverable) is no listing
    if (!isListing(c)) continue;
    if (new RegExp(`(^|[\\s/])${escapeRe(b)}(\\s|$)`, "m").test(out)) return true;
  }
  return false;
}

/** The folder a shell segment changes into (`cd /app`, `cd "my dir"`), quotes off; else none. */
export function cdTarget(seg: string): string | undefined {
  const m = /^cd\s+(?:"([^"]*)"|'([^']*)'|(\S+))\s*$/.exec(seg.trim());
  return m ? (m[1] ?? m[2] ?? m[3]?.replace(/^['"]|['"]$/g, "")) : undefined;
}

/**
 * A path resolved against a working folder, `.` and `..` steps folded: absolute when either
 * is; relative to that folder when both are; none for a relative path in an unknown folder.
 */
export function resolveIn(cwd: string | undefined, p: string): string | undefined {
  const full = p.startsWith("/") ? p : cwd ? `${cwd}/${p}` : undefined;
  if (full === undefined) return undefined;
  const out: string[] = [];
  for (const part of full.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return full.startsWith("/") ? `/${out.join("/")}` : out.join("/") || ".";
}

/** The folder a path lies in: `.` for a bare name, `/` for a top-level one. */
export function dirOf(p: string): string {
  const cut = p.lastIndexOf("/");
  return cut < 0 ? "." : cut === 0 ? "/" : p.slice(0, cut);
}

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether any tool call's text mentions the path (read, listed, searched, written). */
export function touched(a: Attempt, named: string): boolean {
  const b = baseName(named);
  return toolCalls(a).some((c) => callText(c).includes(b));
}

/**
 * Path tokens start at a token start and are bounded: long word runs must not backtrack
 * quadratically. `ran`: the words say a program could not be started because it is not there
 * (the file is the program the checker ran, not an input or an output of one).
 */
const VERIFIER_MISSING: { re: RegExp; ran?: (path: string) => boolean }[] = [
  {
    re: /(?:FILE\s+)?(?<![\w./-])([\w./-]{1,200}\.[A-Za-z]\w{0,7})['"`]?[ \t]*:?[ \t]*(?:file[ \t]+)?(?:does not exist|doesn't exist|is missing|was not found|not found|missing|was not (?:created|written|produced|generated))/gi,
  },
  {
    re: /(?:missing|no such file(?: or directory)?|not found|does not exist)[: \t]+['"`]?([\w./-]{1,200}\.[A-Za-z]\w{0,7})/gi,
  },
  // `No such file or directory: '/app/out'` (a quoted path, with or without an extension)
  { re: /no such file or directory:?\s+['"`]([\w./-]{1,200}\/[\w.-]{1,100})['"`]/gi },
  // Python (up to 3.8; later ones print the absolute path) that could not open the program it
  // was given: `python3: can't open file 'x.py': [Errno 2] No such file or directory`
  {
    re: /\bpython[\d.]*:[ \t]{1,4}can't open file[ \t]{1,4}'([\w./-]{1,200}\.[A-Za-z]\w{0,7})':[ \t]{0,4}\[Errno 2\]/gi,
    ran: () => true,
  },
  // `cannot open file 'x.R'`, `can't open file '/app/run.py'`, `failed to read x.json`
  {
    re: /(?:cannot|can't|could not|couldn't|unable to|failed to) (?:open|read|find|load|stat)(?: file)?:?\s+['"`]?([\w./-]{1,200}\.[A-Za-z]\w{0,7})/gi,
  },
  // a runner that could not start the program because it is not there (uv's `Failed to spawn:
  // \`x.py\`` then `Caused by: No such file or directory`; a permission or format error is none)
  // (uv resolves a `.py` name, or one with a folder, as a file; any other name it looks up or
  // executes, where a missing shebang interpreter says the same)
  {
    re: /failed to spawn:?\s+['"`]?([\w./-]{1,200}\.[A-Za-z]\w{0,7})['"`]?[ \t]{0,4}(?:\r?\n|\\n)[ \t]{0,8}caused by:[ \t]{0,4}no such file or directory/gi,
    ran: (p) => /\.pyw?$/i.test(p) || p.includes("/"),
  },
  // `No ars.R file found`, `no output.json exists`
  {
    re: /\bno\s+['"`]?([\w./-]{1,200}\.[A-Za-z]\w{0,7})['"`]?\s+(?:file\s+)?(?:was\s+)?(?:found|exists?|present)\b/gi,
  },
  // pytest's explanation of a failed `assert Path(x).exists()` / `os.path.exists(x)`
  {
    re: /False = (?:exists|is_file|is_dir)\(\)\s{0,20}(?:E\s{0,20})?(?:\+\s{0,20})?where \w+ = (?:Posix|Windows)?Path\('([^'\n]{1,200})'\)\.(?:exists|is_file|is_dir)\b/g,
  },
  {
    re: /False = (?:exists|is_file|is_dir)\(\)\s{0,20}(?:E\s{0,20})?(?:\+\s{0,20})?where \w+ = \((?:Posix|Windows)?Path\('([^'\n]{1,200})'\) \/ '([^'\n]{1,100})'\)\.(?:exists|is_file|is_dir)\b/g,
  },
  { re: /False = <function (?:exists|isfile|isdir) at 0x[0-9a-f]{1,16}>\('([^'\n]{1,200})'\)/g },
];
/** A verifier check that a file was created/exists, scored 0. */
export const CREATED_ZERO =
  /(?<![\w.])["']?[\w.]{0,80}(?:file_created|file_exists|output_created|created|exists)["']?\s*[:=]\s*(?:0(?:\.0+)?|false)\b/i;

/** One path the verifier reports missing, with the verifier line (or test) that says so. */
export interface MissingFact {
  path: string;
  /** The failing test whose message names it, when a test result does. */
  test?: string;
  file?: string;
  line?: number;
  excerpt: string;
  /** The words say the checker could not start it: the program it ran is not there. */
  ran?: true;
}

const MAX_FACTS = 40;

function lineOf(text: string, at: number): { line: number; text: string } {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) n++;
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const end = text.indexOf("\n", at);
  return { line: n, text: text.slice(start, end === -1 ? undefined : end) };
}

/**
 * Where the agent's own runs looked for a file the verifier names by a relative path: an
 * absolute path ending in it that a tool result of the agent's reported missing (Python's
 * `can't open file '/workspace/x.py'`, a shell's `No such file or directory`). The verifier's
 * relative name means that place, where the agent ran from.
 */
export function lookedForAt(a: Attempt, rel: string): { path: string; call: Event } | undefined {
  if (rel.startsWith("/") || rel.includes("..")) return undefined;
  const name = rel.replace(/^\.\//, "");
  const tail = `/${name}`;
  // the call ran the name as given, relative (`python x.py`), not some absolute path ending in it
  const asGiven = new RegExp(`(?<![\\w./-])(?:\\./)?${escapeRe(name)}(?![\\w.-])`);
  let found: { path: string; call: Event } | undefined;
  for (const c of toolCalls(a)) {
    const text = callText(c);
    if (!asGiven.test(text)) continue;
    const out = outputOf(a, c);
    if (!out.includes(tail)) continue;
    const hit = missingIn(out).find(
      (m) => m.path.startsWith("/") && m.path.endsWith(tail) && !text.includes(m.path),
    );
    // the latest such run says where the agent last ran it from
    if (hit) found = { path: hit.path, call: c };
  }
  return found;
}

/**
 * Missing paths a text names, each with the offset of the words that say so, and whether
 * any words say a program of that name could not be started.
 */
function missingIn(text: string): { path: string; at: number; ran: boolean }[] {
  const out: { path: string; at: number; ran: boolean }[] = [];
  for (const { re, ran: started } of VERIFIER_MISSING)
    for (const m of text.matchAll(re)) {
      const p = m[1] ? clean(m[2] ? `${m[1].replace(/\/+$/, "")}/${m[2]}` : m[1]) : "";
      if (!p || /^\d/.test(p)) continue;
      const ran = started?.(p) ?? false;
      const seen = out.find((o) => o.path === p);
      if (!seen) out.push({ path: p, at: m.index ?? 0, ran });
      // the words that say the program could not start are the ones to quote
      else if (ran && !seen.ran) Object.assign(seen, { at: m.index ?? 0, ran: true });
    }
  return out;
}

/**
 * Prose documents (notes, summaries, READMEs): what a test, build or run checks is not in them.
 * Not `.txt`, which is as often a build file (`CMakeLists.txt`, `requirements.txt`) or an answer.
 */
const PROSE_DOC = /\.(?:md|markdown|rst|adoc)$/i;

/** Whether the task or the verifier names a document: by its file name, or by most words of its stem. */
function documentNamed(a: Attempt, path: string): boolean {
  const b = baseName(path);
  if (namedFiles(a.taskText).some((n) => baseName(n) === b)) return true;
  const verifier = a.verifierOutput ?? "";
  if (verifier.includes(b)) return true;
  // "write the report" names report.md, "an itinerary for Kyoto" kyoto_itinerary_draft.md: most
  // words of the stem in the task (a word of two letters says nothing)
  const words = b
    .replace(/\.[^.]*$/, "")
    .toLowerCase()
    .split(/[_\W-]+/)
    .filter((w) => w.length >= 3);
  const text = `${a.taskText}\n${verifier}`.toLowerCase();
  const found = words.filter((w) => new RegExp(`\\b${escapeRe(w)}\\b`).test(text)).length;
  return words.length > 0 && found * 2 > words.length;
}

/**
 * A write whose every path is a prose document neither the task nor the verifier names (an
 * agent's closing `IMPLEMENTATION_SUMMARY.md`): it changes nothing a check would look at, so
 * it is no write a check must follow. A named one (the report the task asks for) is a deliverable.
 */
export function notesOnly(a: Attempt, call: Event): boolean {
  const paths = writtenPaths(call);
  if (paths.length === 0 || !paths.every((p) => PROSE_DOC.test(p))) return false;
  return paths.every((p) => !documentNamed(a, p));
}

/**
 * Whether the verifier's output says, in its opening lines, that the deliverable it graded was
 * empty: the lines it kept from the file's start (`verifierSource.head`), or the first lines of
 * an output read from its start. A test's title further on ("applies an empty patch") is none.
 */
export function emptySubmission(a: Attempt): boolean {
  const src = a.verifierSource;
  const lines = (a.verifierOutput ?? "").split("\n");
  const opening = src?.head
    ? lines.slice(0, src.head)
    : (src?.firstLine ?? 1) === 1
      ? lines.slice(0, SUBMISSION_OPENING_LINES)
      : [];
  return opening.some((l) => EMPTY_SUBMISSION.test(l));
}

/**
 * Files the verifier reports missing (in its failing tests' messages and its output), each
 * with the test, file and line that say so; and whether a "file created" check scored 0.
 */
export function verifierMissing(a: Attempt): {
  paths: string[];
  createdZero: boolean;
  facts: MissingFact[];
} {
  const facts: MissingFact[] = [];
  const add = (f: MissingFact) => {
    const i = facts.findIndex((x) => x.path === f.path);
    // a later line that says the program could not start says more than one that it is missing
    // (and is kept past the cap: it says where the checker ran)
    if (i >= 0 && f.ran && !facts[i]?.ran) facts[i] = f;
    else if (i < 0 && facts.length < (f.ran ? 2 * MAX_FACTS : MAX_FACTS)) facts.push(f);
  };
  for (const t of failingTests(a)) {
    const msg = t.message ?? "";
    for (const { path, at, ran } of missingIn(msg))
      add({
        path,
        ...(ran ? { ran: true as const } : {}),
        test: t.name,
        ...(t.file ? { file: t.file } : {}),
        ...(t.line !== undefined ? { line: t.line } : {}),
        excerpt: `${t.name}: ${lineOf(msg, at).text.trim()}`.slice(0, 300),
      });
  }
  const text = a.verifierOutput ?? "";
  const src = a.verifierSource;
  // the test's own code in a traceback says what it would report, not what happened
  for (const { path, at, ran } of missingIn(withoutTracebackCode(text))) {
    const l = lineOf(text, at);
    // an output read whole from its start counts from line 1; a tail with no known start has none
    const line =
      src && verifierFileLine(src.head ? src : { ...src, firstLine: src.firstLine ?? 1 }, l.line);
    add({
      path,
      ...(ran ? { ran: true as const } : {}),
      ...(src ? { file: src.file } : {}),
      ...(line !== undefined ? { line } : {}),
      excerpt: l.text.trim().slice(0, 300),
    });
  }
  return { paths: facts.map((f) => f.path), createdZero: CREATED_ZERO.test(text), facts };
}

/** The error text of a failing tool result, whatever the tool (JSON `error` fields first). */
export function errorText(r: Event | undefined): string {
  const out = r?.output ?? "";
  const j = out.match(/"error"\s*:\s*"((?:[^"\\]|\\.)*)"/);
  if (j?.[1]) return j[1];
  const line = out
    .split("\n")
    .map((l) => l.trim())
    .find((l) => /error|fail|denied|refused|not found|exception|invalid|unavailable/i.test(l));
  return (line ?? out.trim().split("\n")[0] ?? "").slice(0, 200);
}

const JSON_ERROR = /"status"\s*:\s*"error"|"error"\s*:\s*"[^"]+"|"is_?error"\s*:\s*true/i;

/** Whether a call failed, for any tool: exit status, error flag, or a JSON error result. */
export function toolFailed(a: Attempt, call: Event): boolean {
  const r = resultOf(a, call);
  const src = r ?? call;
  // Shell output is judged by its exit status and text; another tool's output is content
  // (a file that mentions "Error:" is no failure), so only its flags and JSON status count.
  if (commandOf(call) !== undefined) return callFailed(a, call);
  if (src.exitCode !== undefined) return src.exitCode !== 0;
  if (src.isError) return true;
  return JSON_ERROR.test((src.output ?? "").slice(0, 300));
}

/** Whether the attempt hit its time limit (outcome or exception type). */
export function isTimeout(a: Attempt): boolean {
  return a.outcome === "timeout" || isTimeoutType(a.exception?.type ?? "");
}

/** A limit on the agent's own steps: turns, iterations, steps (not its time). */
const STEP_LIMIT =
  /\bmax(?:imum)?[ _-]?(?:number[ _-]of[ _-])?(?:iterations?|turns?|steps?)\b|\blimits?[ _-]?exceeded|(?:step|turn|iteration)[ _-]?(?:cap|limit)/i;
/** Words that say the limit was hit (not merely stated: "you have 40 turns"). */
const LIMIT_HIT = /\b(?:reached|exceeded|hit|aborting|stopped)\b|LimitsExceeded|MaxIterations/i;

/**
 * The run was ended by a limit on the agent's own steps (a turn cap, an iteration limit):
 * the exception says so (OpenHands' `MaxIterationsReached`, mini-SWE-agent's
 * `LimitsExceeded`), or a system message after the agent's last call does (a scaffold's
 * "reached max_turns=40, aborting").
 */
export function stepLimitReached(a: Attempt): boolean {
  const ex = `${a.exception?.type ?? ""} ${a.exception?.message ?? ""}`;
  if (STEP_LIMIT.test(ex) && LIMIT_HIT.test(ex)) return true;
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i];
    if (!e || e.kind === "tool_call") break;
    if (e.kind === "message" && e.role === "system") {
      const t = e.input ?? "";
      if (STEP_LIMIT.test(t) && LIMIT_HIT.test(t)) return true;
    }
  }
  return false;
}

/**
 * The run ran out of its budget, of time or of steps: what it had not delivered by then is
 * the deadline's mechanism.
 */
export function outOfBudget(a: Attempt): boolean {
  return isTimeout(a) || stepLimitReached(a);
}

/**
 * Whether the harness ended the run (an exception, an error outcome, a time limit): the
 * agent did not choose its stop, so what it left undone before the stop is no stop-time
 * mechanism.
 */
export function endedByHarness(a: Attempt): boolean {
  return a.exception !== undefined || a.outcome === "error" || outOfBudget(a);
}

/** Input keys that place content at a range of a file (OpenHands' `edit_file` start/end). */
const RANGE_KEYS = ["start", "end", "insert_line", "line", "offset", "start_line", "end_line"];

/**
 * The whole content a write tool call wrote, when its input shows it (shell writes, and
 * content placed at a range of the file: undefined).
 */
export function writtenContent(call: Event): string | undefined {
  if (commandOf(call) !== undefined) return undefined;
  try {
    const j = JSON.parse(call.input ?? "") as Record<string, unknown>;
    if (RANGE_KEYS.some((k) => j[k] !== undefined && j[k] !== null)) return undefined;
    for (const k of ["content", "file_text", "text", "contents"]) {
      const v = j[k];
      if (typeof v === "string") return v;
    }
  } catch {
    // not JSON: content unknown
  }
  return undefined;
}

/**
 * An editor tool's call that hands over a whole file's content (Write, write_file, a `create`
 * with its text): the file is replaced whatever it held. Judged by the call's shape, not by
 * the tool's name.
 */
export function isWholeFileWrite(call: Event): boolean {
  return writtenContent(call) !== undefined && writtenPaths(call).length > 0;
}

/** An editor or patch tool's call that changes part of a file (old and new text, a patch). */
export function isPartialEdit(call: Event): boolean {
  return (
    commandOf(call) === undefined &&
    writtenContent(call) === undefined &&
    writtenPaths(call).length > 0
  );
}
