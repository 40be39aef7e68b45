import type { Attempt, Event } from "../../model/attempt.js";
import { allWrites, baseName, escapeRe } from "../detectors/paths.js";
import {
  commandOf,
  INTERPRETERS,
  outputOf,
  programsOf,
  segments,
  TEST_RE,
} from "../detectors/shell.js";
import { modelApiFault } from "./model-notice.js";
import { excerpt, type Fault } from "./types.js";

/**
 * A binary the shell could not find, in a shell's own wording: `sh: 1: X: not found`,
 * `bash: line 1: X: command not found`, `./run.sh: 3: X: not found`, a line opening
 * `X: command not found`, zsh's and fish's, cmd's and PowerShell's, a tool's own "X CLI not
 * found". A program's own "key X: not found" or "Unknown command: X" (the program ran) is none.
 */
const MISSING_BINARY: readonly RegExp[] = [
  /^[ \t]*(?:[^\s:]*\/)?-?(?:ba|da|z|k|mk|a)?sh: (?:(?:line )?\d+: )?([\w.+-]+): (?:command )?not found\b/m,
  /^[ \t]*[^\s:]+: (?:line )?\d+: ([\w.+-]+): (?:command )?not found\b/m,
  /^[ \t]*([\w.+-]+): command not found\b/m,
  /\bzsh:(?:\d+: ?| )command not found: ([\w.+-]+)/,
  /\bfish: Unknown command:? '?([\w.+-]+)'?/,
  /'([\w.+-]+)' is not recognized as an internal or external command/,
  /\bThe term '([\w.+-]+)' is not recognized as (?:the )?name of a cmdlet/,
  /\b([\w.+-]+) CLI (?:is )?not (?:found|installed)\b/i,
];

/** Every program an output says is missing, in the order the patterns find them. */
function missingPrograms(out: string): string[] {
  return MISSING_BINARY.flatMap((re) =>
    [...out.matchAll(new RegExp(re.source, `${re.flags}g`))].map((m) => m[1] ?? ""),
  ).filter((b) => b !== "");
}

/** A CLI or service that wants a login, a token or credentials the environment lacks. */
const NO_CREDENTIALS =
  /\b(?:\w+ auth login|not logged in|not authenticated|unauthenticated|authentication (?:is )?required|authentication failed|login required|no (?:valid )?credentials|credentials? (?:not found|missing|unavailable|not configured|are not set)|could not find default credentials|no oauth client|oauth client (?:is )?not configured|\w+_TOKEN environment variable|api[ _]key (?:is )?(?:not set|missing|required)|authError|401 unauthorized|"code":\s*401)\b/i;

/** Wording of credentials that were given and refused (a wrong password), not missing ones. */
const REJECTED_CREDENTIALS =
  /\b(?:password authentication failed|(?:invalid|incorrect|wrong) (?:password|username or password)|access denied for user)\b/i;

/** A command that hands credentials over itself (a header, a password or token option or variable). */
const SUPPLIES_CREDENTIALS =
  /\bAuthorization:|\bBearer\s|(?:^|\s)--?(?:password|passwd|token|api[-_]?key)\b|(?:^|\s)-u\s*[^\s:]+:\S|\b[A-Z_]{0,30}(?:PASSWORD|PASSWD|TOKEN|API_KEY|SECRET)[A-Z_]{0,30}=|:\/\/[^\s/@:]+:[^\s/@]+@/;

/** A command that reaches a service on this machine: the agent's own. */
const LOCAL_SERVICE = /\b(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0)\b|\[::1\]/i;

/**
 * Whether a shell segment runs the agent's own code, whose output is the program's and not the
 * environment's: a script or code through an interpreter (`python test_auth.py`, `bash run.sh`,
 * not `bash -c 'gh …'`), a program by a relative path (`./app`), a test runner, a package's
 * `run`/`start`/`test` script.
 */
function runsOwnCode(seg: string): boolean {
  const words = seg.trim().split(/\s+/);
  let i = 0;
  while (
    i < words.length &&
    /^(?:\w+=\S*|sudo|env|time|exec|nohup|timeout|\d+[smh]?)$/.test(words[i] ?? "")
  )
    i++;
  const prog = words[i];
  if (!prog) return false;
  if (/^\.\.?\//.test(prog)) return true;
  const base = baseName(prog);
  const rest = words.slice(i + 1);
  if (/^(?:ba|da|z|k)?sh$/.test(base)) {
    const opts = rest.filter((w) => w.startsWith("-"));
    return !opts.some((o) => /^-[a-z]*c/.test(o)) && rest.some((w) => !w.startsWith("-"));
  }
  if ((INTERPRETERS.test(base) || /^(?:java|deno|bun)$/.test(base)) && rest.length > 0) return true;
  if (TEST_RE.test(seg)) return true;
  return (
    /^(?:go|cargo|dotnet|deno|bun|npm|yarn|pnpm)$/.test(base) &&
    /^(?:run|start|test|exec)$/.test(rest[0] ?? "")
  );
}

/**
 * Whether a call's complaint about credentials is the environment's: the call reaches a
 * service not on this machine, runs none of the agent's own code, and gave no credentials of
 * its own that were refused.
 */
function credentialsMissing(cmd: string, out: string): boolean {
  if (!NO_CREDENTIALS.test(out) || REJECTED_CREDENTIALS.test(out)) return false;
  if (LOCAL_SERVICE.test(cmd) || SUPPLIES_CREDENTIALS.test(cmd)) return false;
  return !segments(cmd).some(runsOwnCode);
}

/**
 * The host cannot run a program at all: an emulator or translation layer that lacks a
 * syscall, a binary for another architecture. Not the program's own failure.
 */
const HOST_CANNOT_RUN =
  /\b(?:unimplemented syscall|exec format error|cannot execute binary file|rosetta error)\b/i;

/** Whether the task text names `tool` as a tool it provides (`gh`, "the gws CLI", …). */
export function taskReliesOn(taskText: string, tool: string): boolean {
  if (tool.length < 2) return false;
  // the attempts of one task share its text: each (text, tool) is read once
  let byTool = RELIED.get(taskText);
  if (!byTool) {
    if (RELIED.size > 256) RELIED.clear();
    byTool = new Map();
    RELIED.set(taskText, byTool);
  }
  let relies = byTool.get(tool);
  if (relies === undefined) {
    // both patterns need the tool's own text: a task that lacks it (as ASCII, where lower
    // case matches as a case-blind pattern does) is read without them
    const absent = ASCII.test(tool) && !lowerOf(taskText).includes(tool.toLowerCase());
    if (absent) relies = false;
    else {
      const { named, toInstall } = reliancePatterns(tool);
      relies = named.test(taskText) && !toInstall.test(taskText);
    }
    byTool.set(tool, relies);
  }
  return relies;
}
const RELIED = new Map<string, Map<string, boolean>>();
const ASCII = /^[\x20-\x7e]*$/;

/** A task text in lower case, for the last few texts asked about. */
function lowerOf(text: string): string {
  let lower = LOWER.get(text);
  if (lower === undefined) {
    if (LOWER.size > 64) LOWER.clear();
    lower = text.toLowerCase();
    LOWER.set(text, lower);
  }
  return lower;
}
const LOWER = new Map<string, string>();

/** The two patterns of a tool, built once per tool (every failed attempt asks for them). */
const RELIANCE = new Map<string, { named: RegExp; toInstall: RegExp }>();
function reliancePatterns(tool: string): { named: RegExp; toInstall: RegExp } {
  let p = RELIANCE.get(tool);
  if (!p) {
    const t = escapeRe(tool);
    p = {
      // a backtick not after another: a code fence's language tag (```java) names no tool
      named: new RegExp(
        `(?<!\`)\`${t}(?:\\s[^\`]*)?\`|\\b${t}\\s+(?:CLI|command|tool|binary|utility)\\b|\\b(?:use|using|via|with|run)\\s+${t}\\b`,
        "i",
      ),
      // "install `X`", "write X", and the program a build verb makes: "Write a Python
      // command-line tool called `wc`", "create a CLI `todo`" (no "with", "that uses", … between:
      // "create a PR with the tool `gh`" makes no `gh`)
      toInstall: new RegExp(
        `\\b(?:install|build|compile|implement|write|create)\\w*\\s+(?:the\\s+)?\`?${t}\\b|\\b(?:build|implement|write|create|develop)\\w*\\s+(?:(?!(?:with|using|uses?|via|through|by|from|in|on|for|to|that|which|and|then|calls?|runs?|invokes?)\\s)[\\w-]+\\s+){0,6}(?:called|named|CLI|command|tool|script|program|utility|binary|executable)\\s+\`?${t}\\b`,
        "i",
      ),
    };
    if (RELIANCE.size > 4096) RELIANCE.clear();
    RELIANCE.set(tool, p);
  }
  return p;
}

/**
 * Whether another call reached `tool` and found it there: ran it as a Python module (`python -m
 * pytest`) without "No module named", or as a program (by name or path) without the shell
 * saying it was not found.
 */
function ranElsewhere(
  a: Attempt,
  runs: readonly CallPrograms[],
  tool: string,
  not: Event,
): boolean {
  const asModule = new RegExp(`\\bpython[\\d.]*\\s+(?:-\\S+\\s+)*-m\\s+${escapeRe(tool)}\\b`);
  return runs.some(({ call, programs }) => {
    if (call === not) return false;
    const cmd = commandOf(call) ?? "";
    const viaModule = asModule.test(cmd);
    if (!viaModule && !programs.some((p) => p === tool || p.endsWith(`/${tool}`))) return false;
    const out = outputOf(a, call);
    if (out.trim() === "") return false;
    if (viaModule) return !/\bNo module named\b/.test(out);
    if (/No such file or directory|error while loading shared libraries|cannot execute/i.test(out))
      return false;
    return !missingPrograms(out).includes(tool);
  });
}

/**
 * A tool the task says it provides that is missing or unauthenticated at the agent's last
 * use of it: the environment, not the agent, stood in the way.
 */
function toolFault(
  a: Attempt,
  markers: readonly string[],
  runs: readonly CallPrograms[],
): Fault | undefined {
  const last = new Map<string, Event>();
  for (const { call, programs } of runs)
    for (const tool of programs) if (taskReliesOn(a.taskText, tool)) last.set(tool, call);
  const own = last.size > 0 ? ownPrograms(a) : new Set<string>();
  for (const [tool, call] of last) {
    // what this command printed (of a pane shared by a batch, its own part)
    const out = outputOf(a, call);
    const missing = missingPrograms(out)[0];
    // a program the agent wrote or built (`wordcount.py` for `wordcount`) that the shell did
    // not find: putting it on the PATH was the agent's work, not the host's
    if (missing === tool && own.has(tool)) continue;
    // another program the command itself runs is missing (prose run as a command, a typo):
    // that program was the agent's choice, not the tool the task relies on
    if (missing && missing !== tool && programsIn(runs, call).includes(missing)) continue;
    // the tool ran in another call (as `python -m pytest`, by its path, before a PATH change):
    // the host had it, and this call's way of reaching it was the agent's
    if (missing === tool && ranElsewhere(a, runs, tool, call)) continue;
    const noCreds = credentialsMissing(commandOf(call) ?? "", out);
    const marker = markers.find((m) => out.toLowerCase().includes(m.toLowerCase()));
    if (!missing && !noCreds && !marker) continue;
    const what = missing
      ? missing === tool
        ? "is not installed"
        : `cannot run: \`${missing}\` is not installed`
      : noCreds
        ? "has no credentials"
        : `failed ("${marker}")`;
    return {
      reason: "provider_fault",
      code: "tool-unavailable",
      detail: `environment: \`${tool}\`, which the task relies on, ${what} at its last use`,
      evidence: [
        { eventIndex: call.index, excerpt: excerpt(`$ ${commandOf(call) ?? ""} → ${out}`) },
      ],
    };
  }
  return undefined;
}

/**
 * A program the task names that the host cannot run at the agent's last use of it (the
 * emulator lacks a syscall, the binary is for another architecture): no agent could have
 * delivered on this host.
 */
function hostFault(a: Attempt, runs: readonly CallPrograms[]): Fault | undefined {
  const last = new Map<string, Event>();
  for (const { call, programs } of runs) {
    for (const p of programs) {
      // the program's stem as a word of the task (`qemu` of qemu-system-x86_64), not inside
      // another word (`cat` in "location")
      const stem = baseName(p).split("-")[0] ?? p;
      if (stem.length >= 3 && namesWord(a.taskText, stem)) last.set(p, call);
    }
  }
  const own = last.size > 0 ? ownPrograms(a) : new Set<string>();
  for (const [p, call] of last) {
    // a program the agent wrote or built (`gcc -c main.c -o main`, then `./main`)
    if (own.has(baseName(p))) continue;
    const out = outputOf(a, call);
    const m = HOST_CANNOT_RUN.exec(out);
    if (!m) continue;
    return {
      reason: "provider_fault",
      code: "host-cannot-run",
      detail: `environment: the host cannot run \`${p}\`, which the task names ("${m[0]}" at its last use)`,
      evidence: [
        { eventIndex: call.index, excerpt: excerpt(`$ ${commandOf(call) ?? ""} → ${out}`) },
      ],
    };
  }
  return undefined;
}

/**
 * The names of programs the agent itself wrote or produced: the base name of every path it
 * wrote, and of every `-o` / `--output` target, with a source or script extension dropped
 * (`wordcount.py` gives `wordcount` too).
 */
function ownPrograms(a: Attempt): Set<string> {
  const names = new Set<string>();
  const add = (path: string) => {
    const base = baseName(path.replace(/^['"]|['"]$/g, ""));
    if (!base) return;
    names.add(base);
    const stem = SOURCE_EXT.exec(base);
    if (stem?.[1]) names.add(stem[1]);
  };
  for (const { path } of allWrites(a)) add(path);
  for (const e of a.events) {
    const cmd = e.kind === "tool_call" ? commandOf(e) : undefined;
    if (cmd) for (const m of cmd.matchAll(OUTPUT_OPTION)) if (m[1]) add(m[1]);
  }
  return names;
}
const SOURCE_EXT =
  /^(.+)\.(?:py|js|mjs|cjs|ts|sh|bash|rb|pl|php|go|rs|c|cc|cpp|java|lua|R|exe|out|bin)$/;
/** A compiler's or linker's output option (`-o main`, `-omain`, `--output=main`). */
const OUTPUT_OPTION = /(?:^|\s)(?:-o\s*|--output[=\s]\s*)([\w./+-]+)(?![^\s;&|<>)])/g;

/** Whether `text` has `word` as a word of its own (case aside); each word's pattern built once. */
function namesWord(text: string, word: string): boolean {
  let re = WORD.get(word);
  if (!re) {
    re = new RegExp(`(?<![\\w.-])${escapeRe(word)}(?![\\w])`, "i");
    if (WORD.size > 4096) WORD.clear();
    WORD.set(word, re);
  }
  return re.test(text);
}
const WORD = new Map<string, RegExp>();

/** Environment / setup / provider faults seen in the events (no exception recorded). */
export function environmentFault(a: Attempt, markers: readonly string[]): Fault | undefined {
  const api = modelApiFault(a, markers);
  if (api) return api;
  const runs = programRuns(a);
  return toolFault(a, markers, runs) ?? hostFault(a, runs);
}

/** A shell call and the programs it runs. */
interface CallPrograms {
  call: Event;
  programs: string[];
}

/** Every shell call with the programs it runs, read once for both readings below. */
function programRuns(a: Attempt): CallPrograms[] {
  const out: CallPrograms[] = [];
  for (const call of a.events) {
    const cmd = call.kind === "tool_call" ? commandOf(call) : undefined;
    if (cmd) out.push({ call, programs: programsOf(cmd) });
  }
  return out;
}

function programsIn(runs: readonly CallPrograms[], call: Event): string[] {
  return runs.find((r) => r.call === call)?.programs ?? [];
}
