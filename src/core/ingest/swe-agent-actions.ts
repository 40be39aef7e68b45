/**
 * SWE-agent's actions (princeton-nlp/SWE-agent 0.x ACI commands, 1.x tools, CodeR's roles'
 * commands) as fire events: which are reads of the repository (`open`, `goto`, `scroll_*`,
 * `search_*`, `find_file`, CodeR's `rover_search_*`), which write a file (`edit a:b` on the
 * open file, `create path`, 1.x `str_replace_editor create|str_replace|insert`), which end a
 * role or the run (`submit`, CodeR's `plan` / `succeed` / `fail`), and which are shell
 * commands (everything else).
 */
import { posix } from "node:path";

/** The editor state SWE-agent records before each step (`{"open_file", "working_dir"}`). */
export interface AciState {
  openFile?: string;
  workingDir?: string;
}

/** A state field as SWE-agent writes it: a JSON string, or (1.x) an object. */
export function parseState(raw: unknown): AciState {
  let v: unknown = raw;
  if (typeof raw === "string") {
    try {
      v = JSON.parse(raw);
    } catch {
      return {};
    }
  }
  if (!v || typeof v !== "object") return {};
  const o = v as Record<string, unknown>;
  const file = typeof o.open_file === "string" && o.open_file !== "n/a" ? o.open_file : undefined;
  const dir = typeof o.working_dir === "string" ? o.working_dir : undefined;
  return { ...(file ? { openFile: file } : {}), ...(dir ? { workingDir: dir } : {}) };
}

/** Words of a command line, as bash splits them (quotes kept together, escapes read). */
export function words(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else cur += c;
  }
  if (has || cur) out.push(cur);
  return out;
}

/** ACI commands that only look at the repository. */
const READS = new Set([
  "open",
  "goto",
  "scroll_down",
  "scroll_up",
  "search_file",
  "search_dir",
  "find_file",
  "similar_issue_search",
  "stackoverflow_search",
  "filemap",
]);

/** CodeR's role commands: a plan handed to the roles, and a role's end. */
const ROLE_ENDS = new Set(["succeed", "fail"]);

/** What an action is, as a fire tool call. */
export type AciAction =
  | { kind: "read"; tool: string; args: Record<string, unknown> }
  | { kind: "write"; tool: string; args: Record<string, unknown>; writes: string[] }
  | { kind: "edit-nofile"; tool: string; args: Record<string, unknown> }
  | { kind: "shell"; command: string }
  | { kind: "submit" }
  | { kind: "plan"; plan: string }
  | { kind: "role-end"; tool: string; args: Record<string, unknown> }
  /** The harness's own end marker (`exit_cost`, `exit_context`, …): no call. */
  | { kind: "exit"; status: string }
  | { kind: "none" };

/** A path as the shell in `workingDir` reads it. */
function resolvePath(path: string, workingDir: string | undefined): string {
  return workingDir && !posix.isAbsolute(path) ? posix.join(workingDir, path) : path;
}

/** The action of one trajectory step, read with the editor state before it. */
export function classifyAction(action: string, state: AciState): AciAction {
  const text = action.replace(/\s+$/, "");
  const trimmed = text.trimStart();
  if (!trimmed) return { kind: "none" };
  const nl = trimmed.indexOf("\n");
  const first = nl === -1 ? trimmed : trimmed.slice(0, nl);
  const argv = words(first);
  const cmd = argv[0] ?? "";
  const rest = first.slice(first.indexOf(cmd) + cmd.length).trim();
  if (/^exit_\w+$/.test(cmd) && argv.length === 1 && nl === -1)
    return { kind: "exit", status: cmd };
  if (cmd === "submit" && argv.length <= 2) return { kind: "submit" };
  if (cmd === "plan") return { kind: "plan", plan: trimmed.slice(4).trim() };
  if (ROLE_ENDS.has(cmd) && nl === -1 && argv.length === 1)
    return { kind: "role-end", tool: cmd, args: {} };
  if (cmd === "edit" && /^\d+:\d+$/.test(argv[1] ?? "")) {
    const [start, end] = (argv[1] ?? "").split(":").map(Number);
    const body = nl === -1 ? "" : trimmed.slice(nl + 1).replace(/\n?end_of_edit\s*$/, "");
    const file = state.openFile;
    const args = { ...(file ? { path: file } : {}), start, end, replacement: body };
    return file
      ? { kind: "write", tool: "edit", args, writes: [file] }
      : { kind: "edit-nofile", tool: "edit", args };
  }
  if (cmd === "create" && argv.length === 2 && nl === -1) {
    const path = resolvePath(argv[1] ?? "", state.workingDir);
    return { kind: "write", tool: "create", args: { path }, writes: [path] };
  }
  if (cmd === "str_replace_editor" || cmd === "edit_file") {
    // SWE-agent 1.x's editor: `str_replace_editor <view|create|str_replace|insert|undo_edit> <path> …`
    const sub = argv[1] ?? "";
    const path = argv[2];
    const args = { command: sub, ...(path ? { path } : {}), input: trimmed };
    if (sub === "view" || !path) return { kind: "read", tool: cmd, args };
    return { kind: "write", tool: cmd, args, writes: [path] };
  }
  if (READS.has(cmd) || cmd.startsWith("rover_search_")) {
    const args: Record<string, unknown> = { arguments: rest };
    if (cmd === "open" && argv[1]) {
      args.path = resolvePath(argv[1], state.workingDir);
      if (argv[2]) args.line = argv[2];
    } else if ((cmd === "goto" || cmd.startsWith("scroll_")) && state.openFile)
      args.path = state.openFile;
    else if (cmd === "search_file") {
      args.search_term = argv[1];
      const f = argv[2] ? resolvePath(argv[2], state.workingDir) : state.openFile;
      if (f) args.path = f;
    } else if (cmd === "search_dir" || cmd === "find_file") {
      args[cmd === "find_file" ? "file_name" : "search_term"] = argv[1];
      if (argv[2]) args.dir = resolvePath(argv[2], state.workingDir);
    }
    return { kind: "read", tool: cmd, args };
  }
  return { kind: "shell", command: trimmed };
}

/** An ACI edit that flake8 (SWE-agent's lint gate) rejected: nothing was written. */
export const LINT_REJECTED = /Your proposed edit has introduced new syntax error\(s\)/;

/** An ACI command that refused its arguments or found nothing to act on. */
const ACI_ERROR =
  /^(?:Error:|Usage:|No file open\b|File .{1,500} not found|Directory .{1,500} not found|Invalid |ERROR:)/;

/** Whether an ACI command's observation says it failed. */
export function aciFailed(observation: string): boolean {
  const o = observation.trimStart();
  return LINT_REJECTED.test(o.slice(0, 400)) || ACI_ERROR.test(o);
}

/** A shell command SWE-agent killed for running too long. */
export const TIMED_OUT = /^EXECUTION TIMED OUT|^The command .{0,500} timed out|Command timed out/;

/** The exit statuses of a run that a limit ended, in words a limit detector reads. */
const LIMIT_STATUS: Readonly<Record<string, string>> = {
  exit_cost: "the cost limit was reached (instance cost limit exceeded)",
  exit_context: "the context window was full (context length limit exceeded)",
  exit_format: "too many malformed responses in a row (format error limit exceeded)",
  exit_total_execution_time: "the total execution time limit was exceeded",
  exit_command_timeout: "too many commands timed out (command timeout limit exceeded)",
};

/**
 * The end of a run its exit status gives, when not the agent's own `submit`: `exit_cost`,
 * `submitted (exit_cost)` (the harness submitted the diff itself), `exit_error`, ….
 */
export function exitOf(
  status: string | undefined,
  lastExitAction: string | undefined,
): { type: string; message: string } | undefined {
  const inner = /^submitted \((\w+)\)$/.exec(status ?? "")?.[1];
  const type = inner ?? (status && status !== "submitted" ? status : lastExitAction);
  if (!type) return undefined;
  const why = LIMIT_STATUS[type] ?? `the run ended with ${type}`;
  const auto =
    inner || (status === "submitted" && lastExitAction)
      ? "; the harness submitted the diff itself"
      : "";
  return { type, message: `SWE-agent ended the run: ${why}${auto}` };
}
