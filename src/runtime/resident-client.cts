import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  read,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/**
 * The hook's resident evaluator, client side. Every agent event starts a `fire hook` process;
 * most of its cost over a bare `node` is loading and warming the hook. A resident evaluator
 * (resident.cts: one process per user and build, started by the first call that finds none,
 * gone after an idle spell) keeps the hook loaded, and each call hands it the event:
 *
 * 1. the call finds the evaluator's request pipe `<dir>/in` (a FIFO) and opens it without
 *    blocking: no reader means no evaluator, so the call starts one and answers the event
 *    itself, as before;
 * 2. it reads the event from stdin (one whole JSON object, or to its end, within the stdin
 *    deadline); anything unusual (over the cap, past the deadline) is answered here, with the
 *    bytes read so far handed to the in-process reader;
 * 3. it writes the event, its arguments, working folder and the environment variables the
 *    hook reads (PASSED_PREFIXES, PASSED_NAMES; none named like a secret) to `<dir>/q-<id>`
 *    (mode 0600), writes `<id>` to the pipe, and waits for `<dir>/a-<id>`: the hook's
 *    stdout, stderr and exit code, which it passes on.
 *
 * The evaluator runs the same hook code (hookCall), with the call's environment and working
 * folder, one call at a time, so its answers, state and log are the one-shot call's. It never
 * waits for a session lock: a held one (a burst of events on one session, a slow or dead
 * holder) sends the call back, to be answered here with the one-shot call's waiting, signals
 * and take-over. A call that gets no answer while the evaluator is gone takes its request
 * back (an atomic rename the evaluator also races for) and answers it here.
 *
 * Security: `<dir>` lies in a per-user folder `fire-hook-<uid>` under $XDG_RUNTIME_DIR (else
 * /dev/shm, else the temp folder) that must be a real folder of this user with no access for others (checked at
 * every call, and the pipe's owner too); otherwise the call runs here. Only this user's
 * processes can reach the evaluator, and they could run the hook themselves. The folder name
 * is keyed by the build (the hook script's device, inode, size and mtime) and the Node version, so a
 * rebuilt or upgraded fire never talks to an old evaluator. `FIRE_HOOK_RESIDENT=0` turns it
 * off. Not on Windows (no FIFOs).
 */

/** `<dir>/in`: the request pipe; `pid`: the evaluator's; `q-`/`a-`: request and answer files. */
export const PIPE = "in";
export const PID_FILE = "pid";
export const STARTING = "starting";
export const REQUEST_PREFIX = "q-";
export const ANSWER_PREFIX = "a-";
/** The evaluator's script, beside this one in dist/runtime. */
export const RESIDENT_SCRIPT = "resident.cjs";
/** The hook script whose identity keys the evaluator's folder. */
const KEY_FILE = "hook.script.cjs";
/**
 * The variables a request carries: those the hook reads (its own, the clients' and the
 * folders'); a variable named like a secret never, even under one of these prefixes.
 */
/**
 * The variables passed: names with these prefixes, and these names. Plain string tests, not
 * patterns: a call's first regular expression costs ~0.2 ms to compile.
 */
const PASSED_PREFIXES = ["FIRE_", "CLAUDE_", "CODEX_", "XDG_", "LC_"];
const PASSED_NAMES = new Set(["HOME", "PATH", "TMPDIR", "USER", "LANG", "TZ"]);
/** A name holding one of these (any case) is never passed: it may name a secret. */
const SECRET_NAME_PARTS = ["KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "COOKIE"];
const STDIN_CAP = 4 * 1024 * 1024;
const STDIN_DEADLINE_MS = 10_000;
/** How long a call waits for an answer before it takes its request back (if still unclaimed). */
const ANSWER_WAIT_MS = 30_000;

/** What the evaluator writes to `a-<id>`. */
export interface ResidentAnswer {
  stdout?: string;
  stderr?: string;
  code?: number;
  /** The evaluator could not answer (stale build, bad request): the call answers itself. */
  refused?: string;
}

/** The header line of a request file (the event's bytes follow it). */
export interface ResidentRequest {
  v: 1;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** When the calling process started (ms since the epoch). */
  startedAt: number;
}

/** Whether this call set UV_THREADPOOL_SIZE (an evaluator it starts gets the default). */
let ownPoolSize = false;

/** The key under which bytes already read from stdin are handed to the in-process reader. */
const HANDED_STDIN = Symbol.for("fire.hook.stdin");

/**
 * Answers one hook call through the resident evaluator; false when the caller must answer it
 * (then any stdin bytes already read are handed over).
 */
export async function answerResident(args: string[], runtimeDir: string): Promise<boolean> {
  const dir = residentDir(runtimeDir, process.env);
  if (!dir) return false;
  let fd: number;
  try {
    fd = openSync(join(dir, PIPE), constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    startResident(dir, runtimeDir); // none (ENOENT) or none reading (ENXIO): next call's
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFIFO() || st.uid !== uid()) return false;
    const deadlineAt = Date.now() + (Number(process.env.FIRE_HOOK_STDIN_MS) || STDIN_DEADLINE_MS);
    const event = readEventNow(deadlineAt) ?? (await readEvent(deadlineAt));
    if (!event.whole) {
      hand(event.bytes, deadlineAt);
      return false;
    }
    const id = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const request = join(dir, REQUEST_PREFIX + id);
    const head: ResidentRequest = {
      v: 1,
      args,
      cwd: process.cwd(),
      env: publicEnv(process.env),
      startedAt: Date.now() - process.uptime() * 1000,
    };
    writeFileSync(request, Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), event.bytes]), {
      mode: 0o600,
      flag: "wx",
    });
    writeSync(fd, `${id}\n`);
    const answer = waitAnswer(dir, id, request);
    if (!answer || answer.refused !== undefined) {
      hand(event.bytes); // read whole: the in-process reader takes it at once
      return false;
    }
    if (answer.stdout) writeAll(1, answer.stdout);
    if (answer.stderr) writeAll(2, answer.stderr);
    process.exitCode = answer.code ?? 0;
    return true;
  } catch {
    return false;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/**
 * The evaluator's folder for this build, when resident evaluation is on and the per-user
 * folder is safe (a real folder of this user, no access for others; it may not exist yet).
 */
export function residentDir(runtimeDir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.FIRE_HOOK_RESIDENT === "0" || process.platform === "win32") return undefined;
  const id = uid();
  if (id < 0) return undefined;
  let key: string;
  try {
    const st = statSync(join(runtimeDir, KEY_FILE));
    // this build's script (device, inode, size, mtime) under this Node: another install,
    // build or Node never shares an evaluator
    key = [st.dev, st.ino, st.size, Math.round(st.mtimeMs * 1000), process.version]
      .map((x) => x.toString(36))
      .join("-");
  } catch {
    return undefined; // no hook script: the one-shot path decides
  }
  const base = env.XDG_RUNTIME_DIR || (shm() ? SHM : env.TMPDIR || "/tmp");
  const user = join(base, `fire-hook-${id}`);
  try {
    const st = lstatSync(user);
    if (!st.isDirectory() || st.uid !== id || (st.mode & 0o077) !== 0) return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
  }
  return join(user, key);
}

/**
 * Linux's shared-memory folder: in memory like $XDG_RUNTIME_DIR (a rename there costs a tenth
 * of one on a journalled /tmp), used when that variable is unset (containers, root).
 */
const SHM = "/dev/shm";

function shm(): boolean {
  try {
    const st = statSync(SHM);
    return st.isDirectory() && (st.mode & 0o1000) !== 0; // sticky, as a shared temp folder is
  } catch {
    return false;
  }
}

/** Makes the folder (mode 0700) and starts an evaluator in it unless one is starting. */
function startResident(dir: string, runtimeDir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const marker = join(dir, STARTING);
    try {
      if (Date.now() - statSync(marker).mtimeMs < 10_000) return; // another call started one
      unlinkSync(marker);
    } catch {
      // no marker
    }
    writeFileSync(marker, String(process.pid), { flag: "wx", mode: 0o600 });
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    const env = { ...process.env };
    if (ownPoolSize) delete env.UV_THREADPOOL_SIZE;
    spawn(process.execPath, [join(runtimeDir, RESIDENT_SCRIPT), dir], {
      detached: true,
      stdio: "ignore",
      env,
    }).unref();
  } catch {
    // no evaluator this time: every call still answers itself
  }
}

/**
 * Stdin as one event: the bytes of one whole JSON object (the usual event; the writer need
 * not close), or everything to the end. `whole` is false past the cap or the deadline.
 */
interface StdinEvent {
  bytes: Buffer;
  whole: boolean;
}

/**
 * readEvent without libuv's thread pool (starting it, for one read, costs about 2 ms of a
 * ~60 ms call): a regular file is read as it is; a pipe or socket is first made
 * non-blocking, as Node's own stdin stream makes it, and then read in a loop that sleeps
 * between empty reads, until one whole object, the end, the cap or the deadline. Undefined
 * where fd 0 is neither (a terminal) or cannot be made non-blocking: readEvent reads it.
 */
function readEventNow(deadlineAt: number): StdinEvent | undefined {
  let st: ReturnType<typeof fstatSync>;
  try {
    st = fstatSync(0);
  } catch {
    return undefined;
  }
  if (!st.isFile() && !((st.isFIFO() || st.isSocket()) && nonBlockingStdin())) return undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const done = (whole: boolean): StdinEvent => ({ bytes: Buffer.concat(chunks, total), whole });
  for (let empty = 0; ; ) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EAGAIN") return done(code === "EOF");
      const left = deadlineAt - Date.now();
      if (left <= 0) return done(false);
      // nothing yet: short sleeps first (the writer is usually just behind), then longer
      Atomics.wait(sleeper, 0, 0, Math.min(left, empty < 20 ? 0.25 : empty < 100 ? 1 : 4));
      empty++;
      continue;
    }
    if (n === 0) return done(true);
    chunks.push(Buffer.from(buf.subarray(0, n)));
    total += n;
    if (total > STDIN_CAP) return done(false);
    if ((buf[n - 1] === 0x7d || buf[n - 2] === 0x7d) && parses(Buffer.concat(chunks, total)))
      return done(true);
    if (Date.now() >= deadlineAt) return done(false);
  }
}

/**
 * Makes fd 0 (a pipe or socket) non-blocking through libuv's uv_pipe_open, which Node's own
 * stdin stream uses; node:fs cannot set O_NONBLOCK. The handle owns fd 0 from then on and is
 * kept (never closed) until the process exits; Node restores fd 0's flags at exit. False
 * where this Node has no such binding.
 */
function nonBlockingStdin(): boolean {
  type PipeWrap = {
    Pipe?: new (type: number) => { open(fd: number): number };
    constants?: { SOCKET?: number };
  };
  const proc = process as unknown as { binding?: (name: string) => PipeWrap };
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true; // process.binding is deprecated (documentation only)
    const wrap = proc.binding?.("pipe_wrap");
    if (typeof wrap?.Pipe !== "function" || typeof wrap.constants?.SOCKET !== "number")
      return false;
    const pipe = new wrap.Pipe(wrap.constants.SOCKET);
    if (pipe.open(0) !== 0) return false;
    stdinHandles.push(pipe);
    return true;
  } catch {
    return false;
  } finally {
    process.noDeprecation = quiet;
  }
}

/** The handle that owns fd 0 once it was made non-blocking (kept from the collector). */
const stdinHandles: unknown[] = [];

/** readEvent with asynchronous reads (libuv's thread pool) raced against the deadline. */
function readEvent(deadlineAt: number): Promise<StdinEvent> {
  // a stdin read needs one pool thread, not libuv's default four (read when the pool
  // starts; the hook's own work is synchronous, the evaluator is started without it)
  if (process.env.UV_THREADPOOL_SIZE === undefined) {
    process.env.UV_THREADPOOL_SIZE = "1";
    ownPoolSize = true;
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(64 * 1024);
    const timer = setTimeout(() => done(false), Math.max(0, deadlineAt - Date.now()));
    let settled = false;
    const done = (whole: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks, total), whole });
    };
    const next = (): void => {
      read(0, buf, 0, buf.length, null, (err, n) => {
        if (settled) return;
        if (err) {
          if ((err as NodeJS.ErrnoException).code === "EAGAIN") setTimeout(next, 2);
          else done((err as NodeJS.ErrnoException).code === "EOF");
          return;
        }
        if (n === 0) return done(true);
        chunks.push(Buffer.from(buf.subarray(0, n)));
        total += n;
        if (total > STDIN_CAP) return done(false);
        if (buf[n - 1] === 0x7d || buf[n - 2] === 0x7d) {
          const all = Buffer.concat(chunks, total);
          if (parses(all)) return done(true);
        }
        next();
      });
    };
    next();
  });
}

function parses(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString("utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits for `a-<id>` (polling, shortest sleeps first); takes the request back when the
 * evaluator is gone or slow and has not claimed it. Undefined: answer the call here.
 */
function waitAnswer(dir: string, id: string, request: string): ResidentAnswer | undefined {
  const file = join(dir, ANSWER_PREFIX + id);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const t0 = Date.now();
  let nextCheck = t0 + 500;
  for (let i = 0; ; i++) {
    if (existsSync(file))
      try {
        const text = readFileSync(file, "utf8");
        unlinkSync(file);
        return JSON.parse(text) as ResidentAnswer;
      } catch {
        return undefined;
      }
    const now = Date.now();
    if (now >= nextCheck) {
      nextCheck = now + 500;
      const gone = !alive(dir);
      if (gone || now - t0 > ANSWER_WAIT_MS) {
        try {
          renameSync(request, `${request}.back`); // unclaimed: ours again
          unlinkSync(`${request}.back`);
          return undefined;
        } catch {
          if (gone) return undefined; // claimed, then the evaluator died: answer here
        }
      }
    }
    Atomics.wait(sleeper, 0, 0, i < 20 ? 0.25 : i < 100 ? 1 : 4);
  }
}

/** Whether the evaluator named in `<dir>/pid` is running. */
function alive(dir: string): boolean {
  try {
    return running(Number(readFileSync(join(dir, PID_FILE), "utf8")));
  } catch {
    return false;
  }
}

/**
 * Whether process `pid` runs: it exists and, where /proc tells, is no zombie (an evaluator
 * that died in a container whose first process reaps nothing stays one).
 */
export function running(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return true; // no /proc here: the signal's answer stands
  }
}

/** The variables of `env` the hook reads (`passedName`): none named like a secret. */
export function publicEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  // the names first: reading every value of process.env costs a call into Node each
  for (const k of Object.keys(env))
    if (passedName(k)) {
      const v = env[k];
      if (v !== undefined) out[k] = v;
    }
  return out;
}

function passedName(k: string): boolean {
  if (!PASSED_NAMES.has(k) && !PASSED_PREFIXES.some((p) => k.startsWith(p))) return false;
  const upper = k.toUpperCase();
  return !SECRET_NAME_PARTS.some((part) => upper.includes(part));
}

/**
 * Leaves the bytes read so far, and the stdin deadline already running, to the in-process
 * reader (runtime/main.ts): the event is read on from fd 0, within the same deadline.
 */
function hand(bytes: Buffer, deadlineAt?: number): void {
  (globalThis as { [HANDED_STDIN]?: { bytes: Buffer; deadlineAt?: number } })[HANDED_STDIN] =
    deadlineAt === undefined ? { bytes } : { bytes, deadlineAt };
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(fd, bytes, at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EAGAIN")
      (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(at));
  }
}

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}
