import type { Event } from "../../model/attempt.js";
import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import { emptySearches } from "./paths.js";
import { commandOf, toolCalls, writtenPaths } from "./shell.js";
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

/**
 * The agent listed its folder for the task's source files, found none, and then started a
 * project of its own: it wrote a project manifest (`go.mod`, `package.json` …) or ran an
 * init command. On a task about code already present (never one that asks for a new project),
 * that is the task's own code never found, rebuilt elsewhere from nothing. A listing piped
 * into a text search is no such finding (its emptiness may mean only "no match").
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
    const first = empty[0];
    if (!first) return [];
    const started = toolCalls(attempt).find(
      (c) =>
        c.index > first.index &&
        (writtenPaths(c).some((p) => MANIFEST.test(p)) || INIT.test(commandOf(c) ?? "")),
    ) as Event | undefined;
    if (!started) return [];
    const what =
      writtenPaths(started).find((p) => MANIFEST.test(p)) ??
      INIT.exec(commandOf(started) ?? "")?.[0] ??
      "a project";
    return [
      {
        eventIndices: [first.index, started.index],
        reason: `a listing for the task's source files found none (${(commandOf(first) ?? first.input ?? "").slice(0, 60)}); the agent then started its own project (${what})`,
        signature: "built a project of its own",
      },
    ];
  },
};
