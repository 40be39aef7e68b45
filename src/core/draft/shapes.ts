import type { Condition, Pattern } from "../policy/schema.js";

/**
 * Generic shapes the mechanism templates are built from: what "a file the task names", "a
 * write", "a listing of the working folder" look like, in any language (paths and file names
 * are the same in every script). Every pattern here avoids lookaround and the `u` flag and has
 * no nested quantifier (linear-time engines and the safety check accept it).
 */

/** File kinds the templates recognise as named files (extension after the dot). */
export const FILE_KINDS =
  "txt|md|json|jsonl|csv|tsv|xml|ya?ml|toml|ini|cfg|conf|log|out|html?|css|js|mjs|ts|tsx|py|ipynb|sh|rb|go|rs|java|c|h|cpp|hpp|sql|db|sqlite|tex|pdf|png|jpe?g|gif|svg|ics|zip|tar|gz|parquet|xlsx?|docx?|pptx?|wav|mp3|mp4";

/**
 * Characters that end a path: ASCII space and punctuation except `- . / _ ~`, and the common
 * CJK / full-width punctuation (`。、，：；` …). Everything else (letters of any script,
 * digits) may be part of a file name.
 */
const STOP =
  "\\x00-\\x2C\\x3A-\\x40\\x5B-\\x5E\\x60\\x7B-\\x7D\\x7F。、，：；？！「」『』（）《》【】“”‘’…";

/** A file name or path with a known kind, as group 1 (`answer.txt`, `out/报告.md`, `/app/x.ics`). */
export const NAMED_FILE = `(?:^|[${STOP}])([^${STOP}]{1,200}\\.(?:${FILE_KINDS}))\\b`;

/**
 * A file the task asks the agent to produce: a named file shortly after a writing cue
 * (write / save / create / produce / output …, and the same cues in Chinese, Japanese,
 * Korean, Spanish, French, German). Inputs the task merely names are not outputs.
 */
export const OUTPUT_FILE = {
  pattern: `(?:write|writ|save|saving|create|produce|output|generate|store|export|emit|put|place|record|report|写入|写到|写成|保存|输出|生成|创建|存为|存到|書き|保存し|出力|작성|저장|escrib|guard|cré|enregistr|écri|schreib|speicher|erstell)[^\\n.。]{0,80}?[${STOP}]([^${STOP}]{1,200}\\.(?:${FILE_KINDS}))\\b`,
  flags: "i",
} as const satisfies Pattern;

/** A folder the task names (`docs/`, `/workspace/input/`), as group 1. */
export const NAMED_DIR = `(?:^|[${STOP}])([./]{0,3}[A-Za-z_][A-Za-z0-9_./-]{0,120}/)(?:$|[${STOP}])`;

/**
 * A file the task says already exists: an existence cue shortly before a named file, in
 * English or Chinese (`the existing config.json`, `I have a CSV file data.csv`, `现有的 a.py`).
 */
export const EXISTING_FILE = `(?:existing|already|provided|given|current|there (?:is|are)|I have|you have|contains?|现有|已有|已存在|给定)[^\\n.。]{0,60}?[${STOP}]([^${STOP}]{1,200}\\.(?:${FILE_KINDS}))\\b`;

/** A time limit the task states (`within 10 minutes`, `30 s`, `5 分钟`). */
export const TIME_LIMIT = {
  pattern:
    "\\b\\d{1,4}\\s?(?:s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?)\\b|\\d{1,4}\\s?(?:秒|分钟|小时)|\\b(?:time limit|deadline|timeout|time budget)\\b",
  flags: "i",
} as const satisfies Pattern;

/** A shell command that writes a file (redirect, tee, in-place edit, copy/move). */
export const SHELL_WRITE =
  "(?:^|[^>&0-9])>{1,2}\\s*[^&\\s|]|\\btee\\b|\\bsed\\s+-i|\\b(?:cp|mv|touch)\\s";

/** A tool call that writes: an edit tool's `writes`, or a writing shell command. */
export const WRITE_CALL: Condition = {
  any: [{ writes: "." }, { command: { pattern: SHELL_WRITE } }],
};

/** Commands that read, parse or test something. */
export const READERS =
  "cat|head|tail|jq|xmllint|diff|cmp|pytest|wc|grep|python3?\\s+-m\\s+json\\.tool|python3?\\s+-c|node\\s+-e";

/** A read of a file by an edit-style tool (read / view / open) or a reading command. */
export const READ_CALL: Condition = {
  any: [
    { tool: { pattern: "^(?:read|view|open|Read|str_replace_based_edit_tool|read_file)$" } },
    { command: { pattern: `\\b(?:${READERS})\\b` } },
  ],
};

/** A listing of the working folder itself (not a filtered or deep search). */
export const FULL_LISTING: Condition = {
  all: [
    {
      any: [
        {
          command: {
            pattern:
              "(?:^|[;&|]\\s*)(?:ls|tree)\\b[^;&|/]{0,24}(?:$|[;&|>]|\\s\\.\\/?(?:$|\\s|[;&|>])|\\s/[A-Za-z0-9_.-]{1,60}/?(?:$|\\s|[;&|>])|\\s~/?(?:$|\\s|[;&|>]))",
          },
        },
        {
          command: {
            pattern:
              "\\bfind\\s+(?:\\.|/[A-Za-z0-9_.-]{1,60}|~)/?(?:$|[;&|>]|\\s+-(?:maxdepth|mindepth|type)\\b)",
          },
        },
        { tool: { pattern: "^(?:ls|list_dir|list_directory|glob|LS)$" } },
      ],
    },
    { not: { command: { pattern: "\\s-i?name\\b|\\s-path\\b|\\s-regex\\b|\\*" } } },
  ],
};

/** A failing tool result: flagged as an error, or a non-zero exit with error text. */
export const FAILED_RESULT: Condition = {
  any: [
    { isError: true },
    { exitCode: { gt: 1 } },
    {
      exitCode: { ne: 0 },
      output: {
        pattern:
          "error|not found|no such|denied|failed|cannot|unable|traceback|exception|invalid|refused|timed out",
        flags: "i",
      },
    },
  ],
};
