import type { Attempt, Event } from "../../model/attempt.js";
import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import { emptySearches, escapeRe, isWholeFileWrite, seenExisting } from "./paths.js";
import { callFailed, commandOf, segments, toolCalls, writtenPaths } from "./shell.js";
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

/** Whether a listing of `folder` takes in `dir` (the same folder or one below it). */
function takesIn(folder: string, dir: string): boolean {
  const d = norm(dir);
  if (folder === "/") return d.startsWith("/");
  if (folder.startsWith("/") !== d.startsWith("/")) return false;
  if (folder === ".") return true;
  return d === folder || d.startsWith(`${folder}/`);
}

const dirOf = (p: string): string => {
  const cut = p.lastIndexOf("/");
  return cut < 0 ? "." : cut === 0 ? "/" : p.slice(0, cut);
};

/**
 * A manifest the call created from nothing: the whole file handed over (an editor's create,
 * a `>` redirect, `tee` without `-a`), never an edit of part of it, and no earlier call read
 * or listed it. Its folder, or none.
 */
function createdManifest(a: Attempt, c: Event): { what: string; dir: string } | undefined {
  const cmd = commandOf(c);
  for (const p of writtenPaths(c)) {
    if (!MANIFEST.test(p) || seenExisting(a, p, c.index)) continue;
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
    const cd = /^cd\s+(\S+)\s*$/.exec(seg);
    if (cd) cwd = norm(cd[1] as string);
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
    for (const c of toolCalls(attempt)) {
      if (c.index <= (empty[0] as Event).index) continue;
      const made = createdManifest(attempt, c);
      if (!made || callFailed(attempt, c)) continue;
      // the empty listing looked where the project was then started (or above it)
      first = empty.find(
        (e) => e.index < c.index && listedFolders(e).some((f) => takesIn(f, made.dir)),
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
