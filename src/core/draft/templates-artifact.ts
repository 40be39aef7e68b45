import type { MechanismTemplate } from "./mechanism-template.js";
import {
  FULL_LISTING,
  NAMED_DIR,
  NAMED_FILE,
  OUTPUT_FILE,
  TIME_LIMIT,
  WRITE_CALL,
} from "./shapes.js";

/**
 * Templates for the deliverable mechanisms: a file the task names never written, written at
 * another path, not written before the deadline, and task inputs never opened. Each reads the
 * task's named files as task values (any language) and never names one.
 */

const NAMED = { id: "outputs", pattern: OUTPUT_FILE };
/** A time limit the task states ("30 minutes", "2h", "10分钟"): its first duration. */
const STATED_LIMIT = {
  id: "limit",
  pattern:
    "\\b(\\d{1,4} ?(?:seconds|second|secs|sec|minutes|minute|mins|min|hours|hour|hrs|hr|s|m|h))\\b|\\d{1,4} ?(?:秒|分钟|小时)",
};
/** Share of a stated time limit after which the deadline nudge fires. */
export const LIMIT_SHARE = 0.5;
const NAMES_A_FILE = NAMED_FILE;

/** Marks the named files a write uses, at their exact path and by file name. */
const WRITE_MARKS = {
  id: "wrote",
  at: "tool" as const,
  when: WRITE_CALL,
  record: "write",
  mark: [
    { values: "outputs", as: "written" },
    { values: "outputs", as: "written_name", match: "name" as const },
  ],
};

export const ARTIFACT_NEVER_WRITTEN: MechanismTemplate = {
  mechanismId: "artifact-never-written",
  id: "tmpl-artifact-never-written",
  version: 1,
  requires: [OUTPUT_FILE],
  fallback: [OUTPUT_FILE],
  build: () => ({
    family: "artifact-never-written",
    title: "Required artifact never written",
    chain: {
      state: "The task names an output file and the agent is stopping without having written it.",
      intervention:
        "At stop, instruct the agent to write every file the task names at exactly that path.",
      behavior: "Every file the task names is written by a tool call.",
      verifier: "The grader reads the named file; a missing file scores nothing.",
    },
    values: [NAMED],
    track: [WRITE_MARKS],
    rules: [
      {
        id: "write-named-file",
        at: "stop",
        when: { captured: "outputs", unmarked: { values: "outputs", as: "written" } },
        action: "instruct",
        message:
          "Before you stop: the task names a file you have not written. Re-read the task, list every file it asks you to produce, and write each one at exactly the path and name the task gives, even if your result is incomplete (a partial answer in the right file beats no file). Then confirm each exists with `ls -l <path>`.",
      },
    ],
    behavior: { not: { unmarked: { values: "outputs", as: "written" } } },
  }),
};

export const ARTIFACT_WRONG_PATH: MechanismTemplate = {
  mechanismId: "artifact-wrong-path",
  id: "tmpl-artifact-wrong-path",
  version: 1,
  requires: [],
  fallback: [
    NAMES_A_FILE,
    {
      pattern: "\\b(?:in|into|to|under)\\s+the\\s+(?:workspace|working|current|project)\\b",
      flags: "i",
    },
  ],
  build: (p) => {
    const kind = p.kinds.length > 0 ? `\\.(?:${p.kinds.join("|")})$` : "\\.[A-Za-z0-9]{1,6}$";
    return {
      family: "artifact-wrong-path",
      title: "Artifact written at another path than the one the grader reads",
      chain: {
        state:
          "The agent wrote its deliverable, but not at the path the task names (or, when it names none, not where the task implies), and did not look where it put it.",
        intervention:
          "At stop, instruct a check of the deliverable's location against the exact path the task (or the project's layout) implies.",
        behavior:
          "A listing of the deliverable's folder after the last write, or a write at the named path.",
        verifier: "The grader looks for the file at one path; a file one folder off is not found.",
      },
      values: [NAMED],
      track: [
        WRITE_MARKS,
        { id: "deliverable", at: "tool", when: { writes: kind }, record: "deliverable" },
        { id: "looked", at: "tool", when: FULL_LISTING, record: "looked" },
      ],
      rules: [
        {
          id: "named-path-missed",
          at: "stop",
          when: { unmarked: { values: "outputs", as: "written", markedAs: "written_name" } },
          action: "instruct",
          message:
            "Before you stop: you wrote a file with the name the task gives, but not at the path it gives. The grader looks at that exact path. Move or copy the file there (keep the name), then `ls -l` that path.",
        },
        {
          id: "check-location",
          at: "stop",
          when: {
            recorded: "deliverable",
            not: { any: [{ captured: "outputs" }, { steps: "looked > deliverable" }] },
          },
          action: "instruct",
          message:
            "Before you stop: check that each file you produced is where the grader will look. The task names no exact path, so use the place it implies: the working folder itself when it says 'in the workspace', or the project's existing folder for that kind of file (for example where its tests already live). List that folder now and move the file if it is one folder off.",
        },
      ],
      behavior: {
        any: [
          { captured: "outputs", not: { unmarked: { values: "outputs", as: "written" } } },
          { steps: "looked > deliverable" },
        ],
      },
    };
  },
};

export const DEADLINE_NO_DELIVERABLE: MechanismTemplate = {
  mechanismId: "deadline-no-deliverable",
  id: "tmpl-deadline-no-deliverable",
  version: 1,
  requires: [],
  fallback: [NAMES_A_FILE, TIME_LIMIT],
  build: (p) => ({
    family: "deadline-no-deliverable",
    title: "Deadline reached after long exploration with no deliverable",
    chain: {
      state: `After ${LIMIT_SHARE * 100}% of the time limit the task states (or ${p.afterCalls} tool calls when it states none) the agent has still not written the deliverable the task names.`,
      intervention:
        "At the next tool call, instruct a minimal valid deliverable now, improved later.",
      behavior: "The named deliverable is written before the run ends.",
      verifier: "A run stopped by its time limit with no deliverable scores nothing.",
    },
    values: [NAMED, STATED_LIMIT],
    track: [{ id: "calls", at: "tool", increment: "calls" }, WRITE_MARKS],
    rules: [
      {
        id: "deliver-first",
        at: "tool",
        when: {
          // a share of the stated time limit; the tool-call count when none is stated or
          // the events carry no timestamps
          any: [
            { elapsed: { share: LIMIT_SHARE, of: "limit" } },
            { count: `calls >= ${p.afterCalls}`, not: { timed: "limit" } },
          ],
          all: [
            {
              any: [
                { captured: "outputs", unmarked: { values: "outputs", as: "written" } },
                { not: { any: [{ captured: "outputs" }, { recorded: "write" }] } },
              ],
            },
          ],
        },
        action: "instruct",
        message: `A good part of your time is spent and the deliverable the task asks for does not exist yet. Runs are stopped at a time limit, and a stopped run with no file scores nothing. Write a minimal valid version of every output the task names now (exact path, required format, your best current answer), then keep improving it.`,
      },
    ],
    behavior: { not: { unmarked: { values: "outputs", as: "written" } }, recorded: "write" },
  }),
};

export const TASK_INPUT_MISSED: MechanismTemplate = {
  mechanismId: "task-input-missed",
  id: "tmpl-task-input-missed",
  version: 1,
  requires: [],
  fallback: [
    NAMES_A_FILE,
    NAMED_DIR,
    {
      pattern:
        "\\b(?:my|the|your)\\s+(?:profile|data|files?|notes|inputs?|documents?|docs|records|logs?)\\b",
      flags: "i",
    },
  ],
  build: () => ({
    family: "task-input-missed",
    title: "Task-local inputs never opened",
    chain: {
      state:
        "The task points at inputs in the working folder (named files or folders, or 'my profile / the data'), and the agent is stopping without having opened them or listed the folder.",
      intervention:
        "At stop, instruct a listing of the working folder and a read of every input the task names or implies.",
      behavior: "Every named input is used by a tool call, or the working folder is listed.",
      verifier: "The grader checks an answer that depends on those inputs.",
    },
    values: [{ id: "inputs", pattern: NAMED_DIR }],
    track: [
      { id: "used", at: "tool", mark: { values: "inputs", as: "used" } },
      { id: "listed", at: "tool", when: FULL_LISTING, set: "listed" },
      {
        id: "missing",
        at: "tool_result",
        when: {
          output: { pattern: "ENOENT|No such file|not found|does not exist|不存在", flags: "i" },
        },
        set: "missed",
      },
    ],
    rules: [
      {
        id: "open-named-inputs",
        at: "stop",
        when: { captured: "inputs", unmarked: { values: "inputs", as: "used" } },
        action: "instruct",
        message:
          "Before you stop: the task names a folder of inputs you have not opened (a folder with that name elsewhere on the machine is not it). List that folder relative to the working folder, read the files in it, and base your answer on them.",
      },
      {
        id: "list-before-concluding",
        at: "stop",
        when: { flag: "missed", unset: "listed" },
        action: "instruct",
        message:
          "Before you stop: a file you looked for was not where you guessed, and you have not listed the working folder. Run `ls -la` and `find . -maxdepth 2 -type f` in the working folder, read every file that looks like an input to this task (profiles, data, notes, configs), and only then decide whether anything is really missing.",
      },
    ],
    behavior: {
      any: [
        { flag: "listed" },
        { captured: "inputs", not: { unmarked: { values: "inputs", as: "used" } } },
      ],
    },
  }),
};
