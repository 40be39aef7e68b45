import { writtenPaths as editedPaths, isShellTool } from "../../ingest/shell.js";
import { plainText } from "../../ingest/verifier-tests.js";
import type { Attempt, Event } from "../../model/attempt.js";

/** Tools that show files or their lines (SWE-agent's file viewer moves with goto/scroll_*). */
const READ_TOOLS =
  /^(read|view|cat|read_file|open|glob|grep|ls|goto|scroll_up|scroll_down|search_file|search_dir|find_file)$/i;

export function parseInput(ev: Event): Record<string, unknown> | undefined {
  if (!ev.input?.trimStart().startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(ev.input);
    return v && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The shell string of a tool call, when it is a shell call. */
export function commandOf(ev: Event): string | undefined {
  if (ev.kind !== "tool_call") return undefined;
  if (ev.command) return ev.command;
  if (ev.tool && isShellTool(ev.tool)) {
    const j = parseInput(ev);
    const c = j?.command ?? j?.cmd;
    if (typeof c === "string") return c;
    if (Array.isArray(c)) return c.map(String).join(" ");
    return ev.input;
  }
  return undefined;
}

/**
 * The program a code tool's call ran (Inspect's `python {code}`, OpenHands'
 * `execute_ipython_cell {code}`): its `code` argument, or the raw input of a tool named for
 * Python that takes no JSON. Undefined for a shell call (see `commandOf`) and any other tool.
 */
export function codeOf(ev: Event): string | undefined {
  if (ev.kind !== "tool_call" || commandOf(ev) !== undefined) return undefined;
  const code = parseInput(ev)?.code;
  if (typeof code === "string") return code;
  if (/python/i.test(ev.tool ?? "") && !ev.input?.trimStart().startsWith("{")) return ev.input;
  return undefined;
}

/** All tool calls of an attempt, in order. */
export function toolCalls(a: Attempt): Event[] {
  return a.events.filter((e) => e.kind === "tool_call");
}

/** The tool_result belonging to a call (by callId, else the next result before another call). */
export function resultOf(a: Attempt, call: Event): Event | undefined {
  const pos = a.events.indexOf(call);
  for (let i = pos + 1; i < a.events.length; i++) {
    const e = a.events[i];
    if (!e) continue;
    if (e.kind === "tool_result" && (call.callId === undefined || e.callId === call.callId))
      return e;
    if (call.callId === undefined && e.kind === "tool_call") return undefined;
  }
  return batchResult(a, call, pos);
}

/**
 * The result of a call sent in a batch whose one terminal pane the harness gave to the
 * batch's first call (Terminus): the first result after the batch's calls, cut to the part of
 * the pane that echoes this command. Undefined when no pane echoes it.
 */
function batchResult(a: Attempt, call: Event, pos: number): Event | undefined {
  const cmd = commandOf(call);
  if (call.callId === undefined || call.output !== undefined || !cmd) return undefined;
  for (let i = pos + 1; i < a.events.length; i++) {
    const e = a.events[i];
    if (!e || e.kind === "tool_call") continue;
    if (e.kind !== "tool_result" || e.output === undefined) return undefined;
    const part = paneSection(e.output, cmd);
    return part === e.output ? undefined : { ...e, output: part, callId: call.callId };
  }
  return undefined;
}

/** Words a search for trouble looks for (an error, a failure, a warning). */
const TROUBLE_WORD = /err|fail|warn|exception|traceback|fatal|panic|overfull|denied|undefined/i;

const FAIL_TEXT =
  /(\b[1-9]\d* failed\b|\bFAILED\b|Traceback \(most recent call last\)|command not found|No such file or directory|Connection refused|Failed to connect|\bError:|\berror:|Permission denied|Segmentation fault|\bFAIL\b)/;

/** A shell condition as a whole segment: `test …`, `[ … ]`, `[[ … ]]`. */
const CONDITION = /^(?:!\s*)?(?:test\s|\[\[?\s)/;

/**
 * A call that exited 1 silently because the condition it opens with came out false, so what it
 * guarded never ran (`test -w /memory && mkdir -p /memory/sessions`): the answer to a question,
 * not a tool error. A bare condition, or one that only reports (`[ -f out ] && echo ok`), is a
 * check whose answer may matter, and stays what its status says.
 */
export function guardedByFalseCondition(a: Attempt, call: Event): boolean {
  const src = resultOf(a, call) ?? call;
  if (src.exitCode !== 1 || cleanOutput(src.output ?? "").trim() !== "") return false;
  const cmd = commandOf(call) ?? "";
  const m = /&&/.exec(cmd);
  if (!m) return false;
  const first = cmd.slice(0, m.index).trim();
  const guarded = cmd.slice(m.index + 2).trim();
  // a guarded step whose output went to a file may have failed silently
  if (/>|&>/.test(guarded.replace(/2>&1|>\s*\/dev\/null/g, ""))) return false;
  return CONDITION.test(first) && !/^(?:echo|printf|cat|ls|true|false)\b/.test(guarded);
}

/** Whether a call's result shows failure (exit code first, then error flag, then text). */
export function callFailed(a: Attempt, call: Event): boolean {
  const r = resultOf(a, call);
  const src = r ?? call;
  const lastSeg = segments(commandOf(call) ?? "").at(-1) ?? "";
  // grep exits 1 when nothing matched: a search of a file, or a search for trouble in a
  // program's output (`make 2>&1 | grep -i error`), that finds nothing is not a failure; a
  // pipe into a search for what should be there (`curl … | grep OK`) that finds nothing is.
  if (src.exitCode === 1) {
    const st = stages(lastSeg);
    const last = st.at(-1) ?? "";
    if (/^grep\b/.test(last) && (st.length === 1 || TROUBLE_WORD.test(last))) return false;
  }
  if (src.exitCode !== undefined) return src.exitCode !== 0;
  if (src.isError) return true;
  // a tool that shows or edits a file (no shell, no code) shows the file's text: a failure
  // word in the file ("Error: missing input" in a snippet of the edited code) is no failure of
  // the call; such a tool reports its own failure at the head of its output
  if (showsFileText(call)) {
    const head = firstLine(src.output ?? "");
    return HEAD_FAIL.test(head) || FAIL_TEXT.test(head);
  }
  return FAIL_TEXT.test(cleanOutput(paneSection(src.output ?? "", commandOf(call))));
}

/** An editor's or reader's own failure at the head of its output (`ERROR:`, `<tool_use_error>`). */
const HEAD_FAIL = /^(?:<tool_use_error>|ERROR\b|Error\b|error\b)/;

/** A call of a tool that reads or edits files by name: no shell command, no program. */
function showsFileText(call: Event): boolean {
  if (commandOf(call) !== undefined || codeOf(call) !== undefined) return false;
  return (!!call.tool && READ_TOOLS.test(call.tool)) || writtenPaths(call).length > 0;
}

/** The first non-blank line of a text (a tool's own status line). */
function firstLine(text: string): string {
  return /^\s*([^\n]*)/.exec(text)?.[1] ?? "";
}

/** Programs a shell string runs: the first word of each pipeline / list segment. */
export function programsOf(cmd: string): string[] {
  const out: string[] = [];
  for (const seg of cmd.split(/[;&|()\n`]+|\$\(/)) {
    const words = seg.trim().split(/\s+/);
    let i = 0;
    while (
      i < words.length &&
      /^(?:\w+=\S*|sudo|env|time|exec|nohup|command|xargs)$/.test(words[i] ?? "")
    )
      i++;
    const w = words[i]?.replace(/^.*\//, "");
    if (w && /^[\w.+-]+$/.test(w)) out.push(w);
  }
  return out;
}

/** The shell's word that a program could not be found (`bash: line 3: javac: command not found`). */
const NOT_FOUND = /(?:^|[\s:])([\w.+-]+): (?:command )?not found\b/gm;

/**
 * Whether a call ran nothing: its own program could not be found (exit 127, or the shell's
 * "X: command not found" for a program the command runs). Such a call checked nothing and
 * showed nothing failing (`javac T.java` where there is no JDK).
 */
export function programNotFound(a: Attempt, call: Event): boolean {
  const cmd = commandOf(call);
  if (!cmd) return false;
  const r = resultOf(a, call) ?? call;
  if (r.exitCode === 127) return true;
  if (r.exitCode !== undefined && r.exitCode !== 0 && r.exitCode !== 1 && r.exitCode !== 2)
    return false;
  const progs = new Set(programsOf(cmd));
  for (const m of ends(outputOf(a, call)).matchAll(NOT_FOUND))
    if (progs.has(m[1] ?? "")) return true;
  return false;
}

/** What a search for the shell's own complaints reads of an output: its first and last MiB. */
const ENDS = 1 << 20;
const ends = (text: string): string =>
  text.length <= 2 * ENDS ? text : `${text.slice(0, ENDS)}\n${text.slice(-ENDS)}`;

/** A call that declares the task done (Terminus's `mark_task_complete`, a `submit` tool). */
const COMPLETION_TOOL = /^(?:mark_)?task_?complete$|^(?:submit|finish|complete_task)$/i;
/**
 * A shell segment that declares the task done to a harness that reads its agent's commands:
 * it echoes the harness's sentinel (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, `echo
 * MINI_SWE_AGENT_FINAL_OUTPUT`), on which the harness takes what follows for the submission
 * and ends the run. An upper-case word only, naming a submission, a final output or a task done.
 */
const COMPLETION_ECHO =
  /^echo\s+(['"]?)(?=[A-Z])[A-Z0-9_]{0,60}(?:SUBMIT|FINAL_OUTPUT|TASK_COMPLETE|TASK_DONE)[A-Z0-9_]{0,60}\1$/;
const declaresDone = (ev: Event): boolean =>
  segments(commandOf(ev) ?? "").some((s) => COMPLETION_ECHO.test(s.trim()));

/** A call that hands the work over as done: a completion tool (`submit`), or a sentinel echo. */
export function handsOverDone(ev: Event): boolean {
  return (
    ev.kind === "tool_call" && ((!!ev.tool && COMPLETION_TOOL.test(ev.tool)) || declaresDone(ev))
  );
}

/**
 * Whether the agent saw a call's output before its run ended. Commands sent in the same turn
 * as the call that declares the task done (a harness that runs them and then ends the run),
 * or in the declaring command itself (`echo <sentinel> && git diff --cached`), with no agent
 * turn after their output, were never read: they checked nothing. A trace that
 * simply ends after a call's output, with no such declaration, is read as seen: a format
 * that does not record the final turn is no evidence that the agent looked away.
 */
export function seenByAgent(a: Attempt, call: Event): boolean {
  const pos = a.events.indexOf(call);
  // a command that declares the task done itself: what it printed went to the harness
  let declared = declaresDone(call);
  let output = call.output !== undefined || call.exitCode !== undefined;
  for (let i = pos + 1; i < a.events.length; i++) {
    const e = a.events[i];
    if (!e) continue;
    if (e.kind === "tool_result") output = true;
    else if (!output && e.kind === "tool_call") {
      // the same turn, before any output came back
      if (handsOverDone(e)) declared = true;
    } else if (
      output &&
      e.role !== "user" &&
      ["message", "reasoning", "tool_call"].includes(e.kind)
    )
      return true;
  }
  return !declared;
}

/**
 * A result that only says the command is still running (a harness that hands a long command
 * to a background session and returns: OpenClaw's "Command still running (session …)", a
 * "running in background with ID …"): the command had not finished, so it shows nothing yet.
 */
const STILL_RUNNING =
  /^\s*(?:command|process) (?:is )?still running\b|\brunning in (?:the )?background with id\b/i;

/**
 * Whether a call's result shows success. A call without any result is not a success, nor
 * one whose result says it is still running.
 */
export function callSucceeded(a: Attempt, call: Event): boolean {
  const r = resultOf(a, call);
  if (!r && call.exitCode === undefined && call.output === undefined) return false;
  if (r?.exitCode === undefined && STILL_RUNNING.test(r?.output ?? call.output ?? "")) return false;
  // typed into a shell still waiting for an earlier command's input: it never ran
  if (r?.exitCode === undefined && typedAtContinuation(a, call)) return false;
  return !callFailed(a, call);
}

/** The plain text of outputs read lately: every detector reads the same few outputs again. */
const PLAIN = new Map<string, string>();
function plainOnce(raw: string): string {
  let text = PLAIN.get(raw);
  if (text === undefined) {
    if (PLAIN.size >= 256) PLAIN.clear();
    text = plainText(raw);
    PLAIN.set(raw, text);
  }
  return text;
}

const TERMINAL_HEADER = /^(?:New Terminal Output|Current Terminal Screen):\s*$/;
const SHELL_PROMPT = /^[\w.-]+@[\w.-]+:[^\n]*?[#$](?: |$)/;

/**
 * Output as a terminal shows it (escapes removed, lines a carriage return redrew as redrawn),
 * less the terminal chrome of tmux-style harness output (Terminus: "New Terminal Output:",
 * echoed `user@host:/dir# command` prompt lines), leaving what the command printed.
 */
export function cleanOutput(raw: string): string {
  // colours and carriage-return redraws first: `\x1b[31m1 failed` reads as `1 failed`
  const text = /[\x1b\r]/.test(raw) ? plainOnce(raw) : raw;
  if (
    !/Terminal (?:Output|Screen):/.test(text) &&
    !SHELL_PROMPT.test(text.split("\n", 3).join("\n").trim())
  )
    return text;
  return text
    .split("\n")
    .filter((l) => !TERMINAL_HEADER.test(l) && !SHELL_PROMPT.test(l))
    .join("\n")
    .trim();
}

/**
 * The part of a terminal pane that one command printed: a harness that sends a batch of
 * keystrokes and returns one pane (Terminus) shows every command of the batch, each after its
 * echoed prompt line. The lines after the prompt line that echoes `command` (its first line),
 * up to the next prompt line; the whole text when no prompt line echoes it (no pane, a wrapped
 * or cut echo), as before.
 */
export function paneSection(text: string, command: string | undefined): string {
  const first = command?.split("\n", 1)[0]?.trim();
  if (!first || !text.includes("\n")) return text;
  const lines = text.split("\n");
  const head = first.slice(0, 60);
  const at = lines.findIndex((l) => {
    const m = SHELL_PROMPT.exec(l);
    return m !== null && l.slice(m[0].length).trimStart().startsWith(head);
  });
  if (at < 0) return text;
  let end = at + 1;
  while (end < lines.length && !SHELL_PROMPT.test(lines[end] ?? "")) end++;
  return lines.slice(at, end).join("\n");
}

/**
 * A line at the shell's continuation prompt (PS2, `> `): input the shell has not run yet.
 * (Python's `>>> ` prompt is an interpreter that runs what it is given.)
 */
const CONTINUATION_LINE = /^>(?!>) ?(.*)$/;

/** Whether the attempt's results are terminal panes with echoed prompt lines (tmux harnesses). */
const panes = new WeakMap<Attempt, boolean>();
function isPaneHarness(a: Attempt): boolean {
  let v = panes.get(a);
  if (v === undefined) {
    v = a.events.some(
      (e) =>
        e.kind === "tool_result" && (e.output ?? "").split("\n").some((l) => SHELL_PROMPT.test(l)),
    );
    panes.set(a, v);
  }
  return v;
}

/**
 * Whether a call's keystrokes went to a shell still waiting for the rest of an earlier
 * command (an unclosed heredoc or quote): on a terminal pane, its command echoes only at the
 * continuation prompt (`> command`, or after a terminator typed without its newline), never at
 * a prompt line. Such a command never ran as a command; it became input to whatever was
 * waiting.
 */
export function typedAtContinuation(a: Attempt, call: Event): boolean {
  const head = commandOf(call)?.split("\n", 1)[0]?.trim().slice(0, 60);
  if (!head || !isPaneHarness(a)) return false;
  const pos = a.events.indexOf(call);
  let pane: string | undefined;
  for (let i = pos + 1; i < a.events.length && pane === undefined; i++) {
    const e = a.events[i];
    if (e?.kind === "tool_result") pane = e.output ?? "";
  }
  if (!pane) return false;
  let atContinuation = false;
  for (const l of pane.split("\n")) {
    const m = SHELL_PROMPT.exec(l);
    if (m) {
      if (l.slice(m[0].length).trimStart().startsWith(head)) return false;
      continue;
    }
    const c = CONTINUATION_LINE.exec(l);
    // (`> EOFchmod …`: a command typed on the terminator's line is input too)
    if (c?.[1]?.includes(head)) atContinuation = true;
  }
  return atContinuation;
}

/**
 * Output text of a call (its result's output, else its own), without terminal chrome; of a
 * pane, the part this command printed.
 */
export function outputOf(a: Attempt, call: Event): string {
  return cleanOutput(paneSection(resultOf(a, call)?.output ?? call.output ?? "", commandOf(call)));
}

const REDIRECT = /(?:^|[^0-9&<>])>>?\s*(['"]?)([^\s'";&|<>]+)\1/g;
/** A quoted shell word that ends at its own closing quote (so a scan never runs on past it). */
const QUOTED = `(?:'[^']*'|"(?:[^"\\\\]|\\\\.)*")`;
/**
 * `sed` with its options (`-i`, `-i.bak`, `-i''`, BSD's `-i ''`, `-E`, `-e`), its quoted script
 * and the files after it: it edits the files in place when an option says so.
 */
const SED_I = new RegExp(
  `\\bsed\\s+((?:(?:-[a-zA-Z-][^\\s'"|;&<>]*(?:''|"")?|''|"")\\s+)*)${QUOTED}((?:\\s+[^\\s|;&<>]+)+)`,
  "g",
);
/**
 * `perl` at the start of a command with its switches (`-pi`, `-i.bak -pe`, `-0777 -pi -e`), its
 * quoted program (which may hold `;`) and the files after it.
 */
const PERL_I = new RegExp(
  `(?:^|[;&|\\n(]\\s*)perl\\s+((?:-\\S+\\s+)*)${QUOTED}((?:\\s+[^\\s|;&<>]+)+)`,
  "g",
);
/** A shell redirection token (`2>/dev/null`, `>out`, `<in`, `&>log`). */
const REDIRECT_TOKEN = /^\d*[<>&]/;

/**
 * Whether perl's switches edit in place: an `i` among single-letter switches (`-pi`, `-i.bak`,
 * `-0777pi`), not inside a switch that takes the rest of its word (`-Ilib`, `-MDigest::MD5`).
 */
function perlInPlace(switches: string): boolean {
  for (const word of switches.trim().split(/\s+/)) {
    if (!word.startsWith("-") || word.startsWith("--")) continue;
    for (let i = 1; i < word.length; i++) {
      const c = word[i] ?? "";
      if (c === "i") return true;
      // these take the rest of the word as their argument
      if ("IMmFxdDCeElV".includes(c)) break;
      if (c === "0") while (/[0-9a-fA-Fx]/.test(word[i + 1] ?? "")) i++;
    }
  }
  return false;
}

/**
 * The files one shell segment rewrites by program: `dd of=<file>` (not a device),
 * `git checkout [<rev>] -- <paths>` and
 * `git restore <paths>` (not `--staged` alone: that changes the index only).
 */
function segmentRewrites(seg: string): string[] {
  const words = seg.trim().split(/\s+/);
  if (words[0] === "dd") {
    const of = words
      .find((w) => w.startsWith("of="))
      ?.slice(3)
      .replace(/^['"]|['"]$/g, "");
    return of && !of.startsWith("/dev/") ? [of] : [];
  }
  if (words[0] !== "git") return [];
  const out: string[] = [];
  if (words[1] === "checkout") {
    const at = words.indexOf("--");
    if (at < 0) return [];
    for (const w of words.slice(at + 1)) {
      if (REDIRECT_TOKEN.test(w)) break;
      if (w !== ".") out.push(w);
    }
    return out;
  }
  if (words[1] !== "restore") return [];
  let staged = false;
  let worktree = false;
  for (let i = 2; i < words.length; i++) {
    const w = words[i] ?? "";
    if (REDIRECT_TOKEN.test(w)) break;
    if (w === "--source" || w === "-s") i++;
    else if (w === "--staged" || w === "-S") staged = true;
    else if (w === "--worktree" || w === "-W") worktree = true;
    else if (!w.startsWith("-") && w !== ".") out.push(w);
  }
  return staged && !worktree ? [] : out;
}
/** Code that writes files without a visible path (python open(..., 'w'), write_text, …). */
const WRITE_CODE_RE =
  /open\([^)]*,\s*['"][wa]b?\+?['"]|\.write_text\(|\.write_bytes\(|\.to_csv\(|\.to_json\(|json\.dump\(/;
const TEE = /\btee\s+(?:-a\s+)?(\S+)/g;
/** `cp`, `mv`, `install`, `ln` and their target (the last operand, before any redirection). */
const CP_MV = /\b(?:cp|mv|install|ln)\s+(?:-\S+\s+)*\S+\s+([^\s;&|<>]+)(?=\s*(?:\d*>|[;&|\n]|$))/g;

/**
 * The command with `>` and `<` blanked where the shell would not read them as redirections:
 * inside single or double quotes (a program passed to `python3 -c "… a -> b …"`), escaped,
 * or in a `#` comment. One linear pass; heredoc bodies are the caller's to strip first.
 */
export function blankQuotedRedirects(cmd: string): string {
  let out = "";
  let quote: string | undefined;
  let comment = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i] as string;
    if (comment) {
      if (c === "\n") comment = false;
      out += c === ">" || c === "<" ? " " : c;
      continue;
    }
    if (c === "\\" && quote !== "'") {
      // an escaped character is never an operator
      const next = cmd[i + 1] ?? "";
      out += c + (next === ">" || next === "<" ? " " : next);
      i++;
      continue;
    }
    if (quote === undefined) {
      if (c === "'" || c === '"') quote = c;
      else if (c === "#" && (i === 0 || /\s/.test(cmd[i - 1] as string))) comment = true;
      out += c;
      continue;
    }
    if (c === quote) quote = undefined;
    out += c === ">" || c === "<" ? " " : c;
  }
  return out;
}

/** File paths a tool call writes: recorded `writes`, edit-tool inputs, shell redirections. */
export function writtenPaths(ev: Event): string[] {
  if (ev.kind !== "tool_call") return [];
  const out = new Set<string>(ev.writes ?? []);
  // an editor or patch tool's paths, read as the importers read them (one list of write tools)
  if (ev.tool && ev.writes === undefined) for (const p of editorPaths(ev)) out.add(p);
  const cmd = commandOf(ev);
  if (cmd) {
    // a `>` inside a heredoc body, a quoted program or a comment writes nothing
    for (const m of blankQuotedRedirects(stripHeredocs(cmd)).matchAll(REDIRECT)) {
      const p = m[2];
      if (p && p !== "/dev/null" && !p.startsWith("&")) out.add(p);
    }
    for (const m of cmd.matchAll(TEE)) if (m[1]) out.add(m[1]);
    for (const m of cmd.matchAll(CP_MV)) if (m[1]) out.add(m[1]);
    for (const m of cmd.matchAll(SED_I)) {
      if (!/(^|\s)-[a-zA-Z]*i|--in-place/.test(m[1] ?? "")) continue;
      for (const f of (m[2] ?? "").trim().split(/\s+/)) if (f) out.add(f);
    }
    for (const m of stripHeredocs(cmd).matchAll(PERL_I)) {
      if (!perlInPlace(m[1] ?? "")) continue;
      for (const f of (m[2] ?? "").trim().split(/\s+/)) if (f) out.add(f);
    }
    for (const seg of segments(cmd)) for (const p of segmentRewrites(seg)) out.add(p);
  }
  return [...out];
}

/** Tools that list, search, plan or fetch and write nothing (beside READ_TOOLS). */
const LOOK_TOOLS =
  /^(?:view_?file|open_?file|search|search_?files|find|find_?files|list|list_?dir(?:ectory)?|list_?files|todo\w*|web_?fetch|web_?search|fetch|think|skill|activate_?skill|scroll_\w+)$/i;
/** Programs that only show what is there: a command made of them writes no file. */
const LOOK_PROGRAMS =
  /^(?:cat|ls|ll|head|tail|grep|egrep|fgrep|rg|find|fd|wc|pwd|cd|echo|printf|which|type|file|stat|du|df|env|printenv|uname|nproc|whoami|id|date|cut|tr|diff|cmp|nl|od|hexdump|less|more|true|test|\[)$/;

/**
 * Whether an event surely changed no file: no tool call, or a call that only looks — a tool
 * that only reads, searches or plans, or a shell command whose every program only shows what
 * is there, with no redirection into a file (`2>&1` and `>/dev/null` aside) and no `find`
 * action that writes or runs. A run of a script, a build, a patch, an edit tool or a sub-agent
 * may write what the trace never names. Stricter than `!isWrite`, which needs a visible write.
 */
export function onlyLooks(e: Event): boolean {
  if (e.kind !== "tool_call") return true;
  if (isWrite(e)) return false;
  const cmd = commandOf(e);
  if (cmd === undefined) return READ_TOOLS.test(e.tool ?? "") || LOOK_TOOLS.test(e.tool ?? "");
  const plain = cmd.replace(/\d*>&\d+/g, " ").replace(/\d*>>?\s*\/dev\/null/g, " ");
  if (plain.includes(">")) return false;
  if (/\s-(?:delete|exec|execdir|ok|okdir|fprint\w*|fls)\b/.test(cmd)) return false;
  return programsOf(plain).every((prog) => LOOK_PROGRAMS.test(prog));
}

/** The paths an editor or patch tool call names (ingest/shell.ts decides which tools write). */
function editorPaths(ev: Event): string[] {
  if (!ev.tool || commandOf(ev) !== undefined) return [];
  return editedPaths(ev.tool, parseInput(ev) ?? ev.input) ?? [];
}

/** A call that changes files (edit tools, or shell writes). */
export function isWrite(ev: Event): boolean {
  if (ev.kind !== "tool_call") return false;
  if (writtenPaths(ev).length > 0) return true;
  return WRITE_CODE_RE.test(commandOf(ev) ?? "");
}

/**
 * Programs that take a file, folder, pattern, user or database as their first word, so a
 * `<program> test` of theirs names something called "test" rather than running tests.
 */
const NOT_A_RUNNER =
  "cd|pushd|ls|ll|dir|tree|mkdir|rmdir|rm|touch|cat|bat|less|more|head|tail|cp|mv|ln|chmod|chown|chgrp|stat|file|du|find|fd|locate|echo|printf|grep|egrep|fgrep|rg|ag|ack|sed|awk|wc|sort|uniq|diff|cmp|tar|zip|unzip|gzip|vi|vim|nvim|nano|emacs|code|open|source|export|unset|alias|which|type|command|man|help|info|whereis|test|git|svn|hg|kill|pkill|sleep|su|sudo|useradd|adduser|userdel|id|groups|ping|host|dig|createdb|dropdb|psql|mysql|sqlite3|mongo|mongosh|redis-cli|conda|activate|workon|docker|podman|kubectl|tmux|screen|basename|dirname|realpath|readlink|xxd|hexdump|od|strings|md5sum|sha256sum|python[\\d.]*|node|ruby|perl|bash|sh|zsh|exec|time|timeout|nohup|env|xargs|watch|tee|cc|gcc|g\\+\\+|clang|java|javac";
/**
 * Any other program given the subcommand `test` as its first word, at command position
 * (`dotnet test`, `bazel test //...`, `swift test`, `mix test`, `bundle exec rake test`,
 * `deno task test`, after `timeout N` or `VAR=x`), unless the program is one that takes a
 * file or a name there (`cd test`, `mkdir test`, `psql test`).
 */
const SUBCOMMAND_TEST = new RegExp(
  String.raw`^\s*(?:[A-Za-z_]\w{0,40}=\S*\s+){0,4}(?:timeout\s+(?:-\S+\s+){0,3}\d\S*\s+)?(?:[\w.-]{1,40}\s+(?:exec|run)\s+)?(?:\S*\/)?(?!(?:${NOT_A_RUNNER})\s)[\w.+-]{1,40}\s+(?:(?:run|task)\s+)?test(?=\s|$)`,
);
const KNOWN_TEST_RE =
  /\b(pytest|py\.test|unittest|npm (?:run )?test|yarn test|pnpm test|go test|cargo test|make (?:test|check)|ctest|jest|vitest|mocha|mvn test|gradle test|tox|bats|phpunit|rspec)\b|\btests?\.(?:sh|py)\b|\brun[_-]?tests?\.(?:sh|py)\b|^\s*(?:\S*\/)?gradlew?(?:\s+(?!-x\s|--exclude-task\s)\S+)*?\s+(?:\S*:)?(?:test|check)(?=\s|$)/;
/** A test run: a known runner, a `tests.sh`/`runtests.py` script, or `<program> test`. */
export const TEST_RE = new RegExp(`${KNOWN_TEST_RE.source}|${SUBCOMMAND_TEST.source}`);
export const PROBE_RE =
  /\b(curl|wget|httpie|http\s+(?:GET|POST|PUT|HEAD|DELETE|:)|nc\s+-z|ncat|ss\s+-[a-z]*l|netstat|lsof\s+-i|telnet|openssl s_client|grpcurl)\b|requests\.get\(|urlopen\(/;
/**
 * Well-known clients of a database, cache or queue server, which reach the server when run
 * (`redis-cli ping`, `psql -c …`, `mysql -e …`, `mongosh --eval …`, `pg_isready`).
 */
const SERVICE_CLIENT =
  /^(?:redis-cli|valkey-cli|keydb-cli|psql|pg_isready|mysql|mariadb|mysqladmin|mongosh|mongo|cqlsh|clickhouse-client|etcdctl|memcstat)$/;
/** Wrappers before a client: `sudo -u postgres`, `timeout 5`, `env`. */
const CLIENT_WRAPPER =
  /^(?:(?:sudo(?:\s+-[ug]\s+\S+|\s+-\S+)*|timeout(?:\s+-\S+)*\s+\S+|env|command|exec)\s+)+/;
/** The host a client is pointed at: `-h db`, `--host=db`, `-hdb`, a `scheme://user@host` URI. */
const CLIENT_HOST =
  /(?:^|\s)(?:-h\s*|--host(?:=|\s+))([^\s:;|&]+)|\b[a-z+]{2,20}:\/\/(?:[^\s@/]{0,200}@)?([^\s:/?]+)/;
const LOCAL_HOST = /^(?:localhost|127(?:\.\d+){3}|0\.0\.0\.0|::1|\[::1\]|\/\S*)$/;

/**
 * Whether a shell command runs a database, cache or queue client (`SERVICE_CLIENT`) against a
 * server on this machine: at a segment's command position, not asked for its help or version,
 * and pointed at no other host (a client's default is the local server).
 */
export function reachesLocalService(cmd: string): boolean {
  return segments(cmd).some((seg) => {
    const run = seg.replace(CLIENT_WRAPPER, "");
    if (!SERVICE_CLIENT.test(programOf(run)?.replace(/^\S*\//, "") ?? "")) return false;
    const own = run.split(/\|/)[0] ?? "";
    if (/(?:^|\s)(?:--help|--version|-V|-\?)(?:\s|$)/.test(own)) return false;
    const m = CLIENT_HOST.exec(own);
    const host = m?.[1] ?? m?.[2];
    return host === undefined || LOCAL_HOST.test(host);
  });
}
export const BUILD_RE =
  /\b(make|gcc|g\+\+|clang|cc|cargo build|go build|go vet|npm run build|tsc|cmake|javac|mvn (?:package|compile)|pdflatex|xelatex|lualatex|latexmk|rustc|ninja)\b/;
/**
 * A segment that checks something: a word with lint/check/validat/verif in it (the same as a
 * `\b[\w-]*…[\w-]*\b` word, without its quadratic backtracking on long hyphenated runs), a
 * viewer or an interpreter.
 */
const CHECK_RE =
  /(?:lint|check|validat|verif)|\b(cat|head|tail|less|grep|rg|diff|cmp|ls|stat|wc|test|file|jq|sha256sum|md5sum|sha1sum|xxd|hexdump|od|sqlite3|psql|mysql|redis-cli|python3?|node|ruby|java|bash|sh|Rscript|go\s+run|cargo\s+run)\b|\|\s*R(?=\s|$)/;

const HEREDOC_OPEN = /<<-?[ \t]*(?:'(\w+)'|"(\w+)"|(\w+))/g;
const LINE_WORD = /\w{1,80}/y;

/**
 * Replaces heredoc bodies with a marker, so the text inside is not read as commands: from
 * `<<WORD` (quoted or not) to the first later line that starts with WORD. Linear in the
 * command's length (no backreference): the lines are indexed by their first word once, and
 * each opener looks its terminator up in that index.
 */
export function stripHeredocs(cmd: string): string {
  if (!cmd.includes("<<")) return cmd;
  // line starts (just after a newline) by the word they begin with, in order
  const starts = new Map<string, number[]>();
  for (let at = cmd.indexOf("\n"); at >= 0; at = cmd.indexOf("\n", at + 1)) {
    LINE_WORD.lastIndex = at + 1;
    const word = LINE_WORD.exec(cmd)?.[0];
    if (!word) continue;
    const next = cmd[at + 1 + word.length];
    if (next !== undefined && !/\s/.test(next)) continue;
    const list = starts.get(word) ?? [];
    list.push(at);
    starts.set(word, list);
  }
  let out = "";
  let from = 0;
  HEREDOC_OPEN.lastIndex = 0;
  for (let m = HEREDOC_OPEN.exec(cmd); m; m = HEREDOC_OPEN.exec(cmd)) {
    if (m.index < from) continue;
    const word = m[1] ?? m[2] ?? m[3] ?? "";
    const lines = starts.get(word) ?? [];
    const bodyFrom = m.index + m[0].length;
    // the first line start at or after the opener's end (binary search)
    let lo = 0;
    let hi = lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((lines[mid] ?? 0) < bodyFrom) lo = mid + 1;
      else hi = mid;
    }
    const end = lines[lo];
    if (end === undefined) continue;
    // the rest of the opener's line is still the command (`cat <<EOF > out.py`)
    const lineEnd = cmd.indexOf("\n", bodyFrom);
    out += `${cmd.slice(from, m.index)}<<HEREDOC${lineEnd > bodyFrom ? cmd.slice(bodyFrom, lineEnd) : ""}`;
    from = end + 1 + word.length;
    HEREDOC_OPEN.lastIndex = from;
  }
  return out + cmd.slice(from);
}

/** Pipeline stages of one shell segment (a single `|`, not `||`); a comment line has none. */
export function stages(seg: string): string[] {
  if (seg.trimStart().startsWith("#")) return [];
  return seg
    .split(/(?<!\|)\|(?!\|)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Shell segments of a command (split on &&, ||, ;, newlines outside heredocs is good enough). */
export function segments(cmd: string): string[] {
  return stripHeredocs(cmd)
    .split(/&&|\|\||;|\n/)
    .map((x) => x.trim())
    .filter(Boolean);
}

function segmentChecks(raw: string): boolean {
  // `cat <<EOF` only prints the heredoc's own text (a commit message: `git commit -m "$(cat <<EOF`)
  const seg = raw.replace(/\bcat\s+<<-?\s*HEREDOC\b/g, "");
  if (TEST_RE.test(seg) || PROBE_RE.test(seg)) return true;
  if (
    /(^|[^0-9&<>])>>?\s*[^\s&]/.test(seg.replace(/2>&1|>\s*\/dev\/null/g, "")) ||
    /\bsed\s+(-\S+\s+)*-[a-z]*i/.test(seg)
  )
    return false;
  return CHECK_RE.test(seg) || BUILD_RE.test(seg);
}

/**
 * A call that looks at state: reads, tests, probes, builds, runs. A write counts only
 * when the same command also checks (`sed -i … && pytest`, `> f && cat f`). A code tool's
 * program (an IPython cell, Inspect's `python`) runs and shows what it printed: a check,
 * unless it writes files without also testing, probing or asserting.
 */
export function isCheck(ev: Event): boolean {
  if (ev.kind !== "tool_call") return false;
  if (ev.tool && READ_TOOLS.test(ev.tool)) return true;
  const cmd = commandOf(ev);
  if (cmd) return segments(cmd).some(segmentChecks);
  const code = codeOf(ev);
  if (code === undefined) return false;
  return (
    TEST_RE.test(code) ||
    PROBE_RE.test(code) ||
    /\bassert\b/.test(code) ||
    !WRITE_CODE_RE.test(code)
  );
}

/** The program a shell segment runs: its first word after `VAR=value` assignments. */
/** Programs that run a program given to them (a script file or `-c`/`-e` code). */
export const INTERPRETERS = /^(?:python[\d.]*|node|ruby|perl|bash|sh|php|Rscript|R|tsx|ts-node)$/;

/** Whether a shell segment runs an interpreter on something (`python3 x.py`, `node -e …`). */
export function runsInterpreter(seg: string): boolean {
  const prog = programOf(seg);
  const base = prog?.split("/").at(-1);
  return !!base && INTERPRETERS.test(base) && seg.trim().split(/\s+/).length > 1;
}

function programOf(seg: string): string | undefined {
  for (const word of seg.split(/\s+/)) {
    if (/^[A-Za-z_]\w*=/.test(word)) continue;
    return word.replace(/^\.\//, "") || undefined;
  }
  return undefined;
}

/**
 * A call that runs a program the attempt itself wrote earlier (`/app/tool`, or `tool` after
 * it was copied into a bin folder): running one's own deliverable is a check of it, although
 * no known tool name says so. `written` holds the paths written before this call.
 */
export function runsWrittenProgram(ev: Event, written: ReadonlySet<string>): boolean {
  const cmd = commandOf(ev);
  if (!cmd || written.size === 0) return false;
  const names = new Set<string>();
  for (const p of written) {
    names.add(p);
    const base = p.split("/").at(-1);
    if (base) names.add(base);
  }
  return segments(cmd).some((seg) => {
    const prog = programOf(seg);
    if (!prog || prog.length <= 1) return false;
    if (names.has(prog)) return true;
    // an interpreter given the file (`python3 t.py`, `npx tsx t.ts`, `uv run t.py`)
    const words = seg.trim().split(/\s+/);
    const at = words.findIndex((w) => !/^[A-Za-z_]\w*=/.test(w));
    let i = at;
    while (i < words.length && LAUNCHERS.test(words[i] ?? "")) i++;
    const interp = words[i]?.split("/").at(-1);
    if (!interp || !INTERPRETERS.test(interp)) return false;
    return words.slice(i + 1).some((w) => names.has(w.replace(/^\.\//, "")));
  });
}

/** Words that launch the next word as the program (`npx tsx`, `uv run python`). */
const LAUNCHERS = /^(?:npx|bunx|pnpx|exec|time|nohup|sudo|env|uv|poetry|pipenv|run|dlx|pnpm|yarn)$/;

/** A call that verifies (test run, probe, build) — narrower than `isCheck`. */
/** Package installs of the common managers (system, Python, Node, Rust, Go, Ruby). */
export const INSTALL_RE =
  /\b(?:apt-get|apt|yum|dnf|apk|zypper|brew)\s+(?:-\S+\s+)*(?:install|add)\b|\b(?:pip[\d.]*|pipx|poetry|conda|mamba|micromamba)\s+(?:-\S+\s+)*(?:install|add)\b|\buv\s+(?:pip\s+install|add|sync|tool\s+install)\b|\b(?:npm|pnpm|yarn|bun)\s+(?:install|i|add|ci)\b|\b(?:cargo|gem)\s+install\b|\bgo\s+(?:install|get)\b/;
/** Downloads from outside the sandbox (not a probe of a local service). */
export const DOWNLOAD_RE =
  /\b(?:curl|wget)\b[^|;&\n]*\bhttps?:\/\/(?!(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?:[:/\s]|$))|\bgit\s+clone\s+(?:-\S+\s+)*(?:https?:\/\/|git@)(?!(?:localhost|127\.0\.0\.1)[:/])|\b(?:huggingface-cli|hf)\s+download\b|\bpip[\d.]*\s+download\b/;
/**
 * A call that verifies: a test run, a build, or a probe of a service — a download from
 * outside the sandbox (`curl https://…/x.tar.gz | tar x`) checks nothing of the agent's work.
 */
export function isVerification(ev: Event): boolean {
  const cmd = commandOf(ev);
  if (!cmd) return false;
  return segments(cmd).some(
    (seg) => TEST_RE.test(seg) || BUILD_RE.test(seg) || (PROBE_RE.test(seg) && !fetchesFile(seg)),
  );
}

/** What a fetch keeps: saved to a file, unpacked or run, a package or an archive. */
const KEEPS_FETCH =
  /\s-[a-zA-Z]*[oO]\b|--output\b|--remote-name\b|\|\s*(?:sudo\s+)?(?:tar|sh|bash|unzip|gunzip|python3?)\b|\.(?:tar\.(?:gz|xz|bz2)|tgz|zip|whl|deb|rpm|gz)\b|\bwget\b|\bgit\s+clone\b|\bdownload\b/;

/**
 * A segment that fetches something from outside the sandbox to keep (a download, a clone),
 * not a probe of a service: a curl of `http://web:8080/health` that prints the answer probes.
 */
export function fetchesFile(seg: string): boolean {
  return DOWNLOAD_RE.test(seg) && KEEPS_FETCH.test(seg);
}

/** Index of the stop event, else the last event's index (+1 when there are none). */
export function stopIndex(a: Attempt): number {
  const stop = [...a.events].reverse().find((e) => e.kind === "stop");
  return stop?.index ?? a.events.at(-1)?.index ?? 0;
}

/** Normalise a command for repetition checks (whitespace, trailing comments). */
export function normaliseCommand(cmd: string): string {
  return cmd
    .replace(/\s+/g, " ")
    .replace(/\s+#.*$/, "")
    .trim();
}

const PROBE_BAD =
  /refused|failed|error|not found|couldn't|could not|timed out|\b[45]\d\d\b|^\s*000\s*$|bad gateway|unavailable/im;

/** A probe (curl, wget, nc …) that succeeded and printed something that is not an error. */
export function probeOk(a: Attempt, call: Event): boolean {
  const cmd = commandOf(call) ?? "";
  if (!PROBE_RE.test(cmd) || !callSucceeded(a, call)) return false;
  const out = outputOf(a, call);
  return out.trim().length > 0 && !PROBE_BAD.test(out);
}

/** Offered tool names that run code or commands. */
const RUNS_CODE = /bash|shell|exec|run|python|terminal|command|test|eval|notebook/i;

/**
 * Whether the agent was offered no tool that runs code: known only where its trace lists the
 * tools it had (an API list in its prompt). Such an agent could not have checked its work by
 * running it, so "stopped without a check" is no rule it could follow.
 */
export function offeredNoRunner(a: Attempt): boolean {
  const tools = a.offeredTools;
  return (
    tools !== undefined &&
    tools.length > 0 &&
    !tools.some((t) => isShellTool(t) || RUNS_CODE.test(t))
  );
}

/** The directory a command's leading `cd` moves to, if any. */
export function leadingCd(cmd: string): string | undefined {
  const m = /^\s*cd\s+(['"]?)([^\s'";&|]+)\1\s*(?:&&|;)/.exec(cmd);
  return m?.[2];
}

/** A path a command wrote, resolved against the folder its leading `cd` moved to, if any. */
export function resolvePath(p: string, cwd: string | undefined): string {
  if (p.startsWith("/") || p.startsWith("~") || !cwd) return p;
  return `${cwd.replace(/\/+$/, "")}/${p.replace(/^\.\//, "")}`;
}
