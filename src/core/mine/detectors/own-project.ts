import type { Attempt, Event } from "../../model/attempt.js";
import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import {
  cdTarget,
  dirOf,
  emptySearches,
  escapeRe,
  isListing,
  isWholeFileWrite,
  resolveIn,
  samePath,
} from "./paths.js";
import { callFailed, commandOf, outputOf, segments, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/** A project's manifest: the file that makes a folder a package, module or build. */
const MANIFEST =
  /(?:^|\/)(?:package\.json|go\.mod|Cargo\.toml|pyproject\.toml|setup\.py|CMakeLists\.txt|pom\.xml|build\.gradle(?:\.kts)?|tsconfig\.json)$/;
/** A command that starts a new project (`go mod init`, `npm init`, `cargo new` …). */
const INIT =
  /\b(?:go\s+mod\s+init|npm\s+init|yarn\s+init|pnpm\s+init|cargo\s+(?:new|init)|poetry\s+(?:new|init)|uv\s+init)\b/;
/** A task that asks for a new project itself (create, scaffold or set up a package …). */
const ASKS_TO_CREATE =
  /\b(?:create|initiali[sz]e|scaffold|set\s+up|bootstrap|start)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:\w+\s+)?(?:project|package|module|repo|repository|app|application|crate|workspace)\b/i;
/** A search whose emptiness means no such files at all (a listing, not a text search). */
const TEXT_SEARCH = /\b(?:grep|rg|ag|ack)\b/;

/** Listing programs whose first plain words are the folders they list (`find` up to its tests). */
const LISTS_FOLDERS = /^(?:sudo\s+)?(ls|ll|dir|tree|du|find|stat|file|fd|locate)\b(.*)$/;
/** Input keys of a listing tool that name its folder. */
const FOLDER_KEYS = ["path", "dir_path", "directory", "dir", "root", "cwd", "target_directory"];

/** A folder as compared: no trailing slash, no leading `./`, `.` for the current folder. */
function norm(p: string): string {
  const q = p.replace(/^['"]|['"]$/g, "").replace(/^\.\/+/, "");
  if (q === "/" || q === "") return q || ".";
  return q.replace(/\/+$/, "") || ".";
}
/** The fixed folder before a glob's first wildcard part (`/app/*.py` → `/app`). */
function globRoot(p: string): string {
  const at = p.search(/[*?[{]/);
  if (at < 0) return p;
  const head = p.slice(0, at);
  const cut = head.lastIndexOf("/");
  return cut < 0 ? "." : cut === 0 ? "/" : head.slice(0, cut);
}

/** The folders a listing call looked in (`.` when it names none: its working folder). */
function listedFolders(c: Event): string[] {
  const cmd = commandOf(c);
  if (cmd === undefined) {
    try {
      const j = JSON.parse(c.input ?? "") as Record<string, unknown>;
      const named = FOLDER_KEYS.map((k) => j[k]).find((v) => typeof v === "string") as
        | string
        | undefined;
      const pattern = typeof j.pattern === "string" ? globRoot(j.pattern) : ".";
      return [norm(named ?? (pattern.startsWith("/") ? pattern : "."))];
    } catch {
      return ["."];
    }
  }
  const out: string[] = [];
  for (const seg of segments(cmd)) {
    const m = LISTS_FOLDERS.exec(seg.split("|")[0]?.trim() ?? "");
    if (!m) continue;
    const prog = m[1] as string;
    if (prog === "locate") {
      out.push("/");
      continue;
    }
    const words = (m[2] ?? "").trim().split(/\s+/).filter(Boolean);
    const plain: string[] = [];
    for (const w of words) {
      if (/^\d?>/.test(w)) break;
      if (/^[-(!]/.test(w)) {
        if (prog === "find") break;
        continue;
      }
      plain.push(w);
    }
    const folders = prog === "fd" ? plain.slice(1) : plain;
    out.push(...(folders.length ? folders.map((f) => norm(globRoot(f))) : ["."]));
  }
  return out;
}

/**
 * Whether a listing of `folder` takes in `dir` (the same folder or one below it). A relative
 * `dir` lies in the agent's working folder, which a trace does not record: an absolute listing
 * takes it in when the agent's own writes by absolute path went under that listed folder
 * (`workFolders`), the folder it was working in.
 */
function takesIn(folder: string, dir: string, workFolders: readonly string[]): boolean {
  const d = norm(dir);
  const under = (f: string, x: string) => f === "/" || x === f || x.startsWith(`${f}/`);
  if (folder === "/") return d.startsWith("/") || workFolders.length > 0;
  if (folder.startsWith("/") && !d.startsWith("/"))
    return workFolders.some((w) => under(folder, w));
  if (folder.startsWith("/") !== d.startsWith("/")) return false;
  if (folder === ".") return true;
  return under(folder, d);
}

/** The folders of the files the agent wrote by absolute path. */
function absoluteWriteFolders(a: Attempt): string[] {
  return [
    ...new Set(
      toolCalls(a)
        .flatMap(writtenPaths)
        .filter((p) => p.startsWith("/"))
        .map(dirOf),
    ),
  ];
}

/**
 * Whether an earlier call showed this very file there: read it (its path in the call, an
 * answer that is no "not found"), printed its path, or listed its folder with its name in the
 * listing. Another file of the same name elsewhere (`find / -name go.mod` finding the Go
 * toolchain's) is not it.
 */
function shownBefore(a: Attempt, path: string, before: number): boolean {
  const base = path.split("/").at(-1) ?? path;
  const dir = dirOf(path);
  for (const c of toolCalls(a)) {
    if (c.index >= before) break;
    const out = outputOf(a, c);
    if (!out || /no such file|not found|cannot access|does not exist/i.test(out.slice(0, 300)))
      continue;
    if (writtenPaths(c).length) continue;
    const text = commandOf(c) ?? c.input ?? "";
    if (path.startsWith("/") && (text.includes(path) || out.includes(path))) return true;
    if (!path.startsWith("/") && new RegExp(`(^|[\\s/'"])${escapeRe(path)}(['"\\s]|$)`).test(text))
      return true;
    if (
      isListing(c) &&
      listedFolders(c).some((f) => f === norm(dir) || samePath(f, dir)) &&
      new RegExp(`(^|[\\s/])${escapeRe(base)}(\\s|$)`, "m").test(out)
    )
      return true;
  }
  return false;
}

/**
 * A manifest the call created from nothing: the whole file handed over (an editor's create,
 * a `>` redirect, `tee` without `-a`), never an edit of part of it, and no earlier call read
 * or listed it. Its folder, or none.
 */
function createdManifest(a: Attempt, c: Event): { what: string; dir: string } | undefined {
  const cmd = commandOf(c);
  for (const p of writtenPaths(c)) {
    if (!MANIFEST.test(p) || shownBefore(a, p, c.index)) continue;
    const whole =
      cmd === undefined
        ? isWholeFileWrite(c)
        : segments(cmd).some((seg) =>
            new RegExp(
              `(?:^|[^>&\\d])>\\s*['"]?${escapeRe(p)}['"]?(?:\\s|$)|\\btee\\s+(?:-(?!a)\\w+\\s+)*['"]?${escapeRe(p)}`,
            ).test(seg),
          );
    if (whole) return { what: p, dir: dirOf(p) };
  }
  if (cmd === undefined) return undefined;
  let cwd = ".";
  for (const seg of segments(cmd)) {
    const cd = cdTarget(seg);
    if (cd) cwd = norm(resolveIn(cwd, cd) ?? cd);
    const init = INIT.exec(seg);
    if (init) return { what: init[0], dir: cwd };
  }
  return undefined;
}

/**
 * The agent listed its folder for the task's source files, found none, and then started a
 * project of its own there: it created a project manifest (`go.mod`, `package.json` …) from
 * nothing, or ran an init command, in the listed folder or below it. On a task about code
 * already present (never one that asks for a new project), that is the task's own code never
 * found, rebuilt elsewhere from nothing. A listing piped into a text search is no such finding
 * (its emptiness may mean only "no match"); an empty listing of another folder (`ls dist`),
 * an edit of a manifest, or a manifest an earlier call read or listed is no new project.
 */
export const ownProjectBuilt: Detector = {
  id: "input.own-project-built",
  description:
    "a listing for the task's source files found none; the agent started a project of its own",
  mechanism: "task-input-missed",
  taskRole: EXISTING_CODE_ROLE,
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    if (!EXISTING_CODE.test(attempt.taskText) || ASKS_TO_CREATE.test(attempt.taskText)) return [];
    const empty = emptySearches(attempt).filter(
      (c) => !TEXT_SEARCH.test(commandOf(c) ?? c.input ?? ""),
    );
    if (empty.length === 0) return [];
    let first: Event | undefined;
    let started: Event | undefined;
    let what = "a project";
    const workFolders = absoluteWriteFolders(attempt);
    for (const c of toolCalls(attempt)) {
      if (c.index <= (empty[0] as Event).index) continue;
      const made = createdManifest(attempt, c);
      if (!made || callFailed(attempt, c)) continue;
      // the empty listing looked where the project was then started (or above it)
      first = empty.find(
        (e) => e.index < c.index && listedFolders(e).some((f) => takesIn(f, made.dir, workFolders)),
      );
      if (!first) continue;
      started = c;
      what = made.what;
      break;
    }
    if (!first || !started) return [];
    return [
      {
        eventIndices: [first.index, started.index],
        reason: `a listing for the task's source files found none (${(commandOf(first) ?? first.input ?? "").slice(0, 60)}); the agent then started its own project (${what})`,
        signature: "built a project of its own",
      },
    ];
  },
};
