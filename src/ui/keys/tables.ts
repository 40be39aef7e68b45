import { type Command, keyTable } from "./table.js";

/**
 * Every key binding of the workbench, one table per screen or mode. Screens bind them with
 * `useKeyTable`; the `?` help and the footer hints are derived from the live tables.
 */

/** Candidates and Screens · replay: search refinements from the latest replay screen. */
const REFINE = {
  id: "refine",
  keys: ["f"],
  label: "refine",
  help: "refinements from its latest replay screen, before/after and diff (nothing saved until accepted)",
} as const satisfies Command;

const MOVE = {
  id: "move",
  keys: ["j", "k", "down", "up", "pgdn", "pgup", "g", "G", "home", "end"],
  label: "move",
  help: "move, a page, first/last (Home/End too)",
  show: "↑↓ j/k PgUp/PgDn g/G",
  short: "j/k",
} as const satisfies Command;

/** The number keys that switch screens (the editor's unsaved guard catches the same ones). */
const SCREEN_NUMBERS = ["1", "2", "3", "4", "5", "6", "7"] as const;

export const GLOBAL_KEYS = keyTable("Everywhere", [
  {
    id: "screen",
    keys: SCREEN_NUMBERS,
    label: "screens",
    help: "switch screen: 1 Triage 2 Attempt 3 Mechanisms 4 Candidates 5 Screens 6 Portfolio 7 Runs",
    show: "1–7",
  },
  { id: "next", keys: ["tab"], label: "next", help: "next screen" },
  { id: "prev", keys: ["shift+tab"], label: "prev", help: "previous screen" },
  {
    id: "back",
    keys: ["esc"],
    label: "back",
    help: "cancel running work, else back to where you came from",
  },
  {
    id: "search",
    keys: ["/"],
    label: "search",
    help: "fuzzy search tasks, attempts, clusters, candidates",
  },
  {
    id: "help",
    keys: ["?"],
    label: "keys",
    help: "this help (every key of the screen you are on)",
  },
  {
    id: "message",
    keys: ["!"],
    label: "message",
    help: "read the last message (an error, a refusal) in full in the pager",
  },
  { id: "quit", keys: ["q"], label: "quit" },
]);

export const LOAD_KEYS = keyTable("Workspace not read", [
  { id: "retry", keys: ["r"], label: "retry", help: "read the workspace again" },
]);

export const HELP_KEYS = keyTable("Help", [
  { ...MOVE, label: "scroll" },
  { id: "close", keys: ["esc", "?", "q"], label: "close" },
]);

export const SEARCH_KEYS = keyTable("Search", [
  { id: "move", keys: ["down", "up", "pgdn", "pgup"], label: "move", show: "↑↓ PgUp/PgDn" },
  { id: "open", keys: ["enter"], label: "open" },
  { id: "close", keys: ["esc"], label: "close" },
]);

export const FIELD_KEYS = keyTable("Text field", [
  { id: "submit", keys: ["enter"], label: "keep" },
  { id: "cancel", keys: ["esc"], label: "drop" },
  { id: "left", keys: ["left"], label: "left", help: "move the cursor left" },
  { id: "right", keys: ["right"], label: "right", help: "move the cursor right" },
  {
    id: "wordLeft",
    keys: ["alt+left", "ctrl+left", "alt+b"],
    label: "word left",
    show: "Alt/Ctrl-←",
    help: "to the previous word (also Alt-B)",
  },
  {
    id: "wordRight",
    keys: ["alt+right", "ctrl+right", "alt+f"],
    label: "word right",
    show: "Alt/Ctrl-→",
    help: "to the next word (also Alt-F)",
  },
  { id: "home", keys: ["home"], label: "start", show: "Home/Ctrl-A" },
  { id: "end", keys: ["end"], label: "end", show: "End/Ctrl-E" },
  { id: "backspace", keys: ["backspace"], label: "delete back", show: "Bksp" },
  { id: "delete", keys: ["ctrl+d"], label: "delete", help: "delete under the cursor" },
  { id: "clear", keys: ["ctrl+u"], label: "clear" },
]);

export const TRIAGE_TASKS_KEYS = keyTable("Triage · tasks", [
  MOVE,
  { id: "open", keys: ["enter"], label: "attempts", help: "list the task's attempts" },
  { id: "status", keys: ["f"], label: "status", help: "cycle the status filter" },
  { id: "arm", keys: ["a"], label: "arm", help: "cycle the arm filter" },
  { id: "outcome", keys: ["o"], label: "outcome", help: "cycle the outcome filter" },
  { id: "agent", keys: ["t"], label: "agent", help: "cycle the agent filter" },
  { id: "model", keys: ["m"], label: "model", help: "cycle the model filter" },
  { id: "source", keys: ["s"], label: "source", help: "cycle the source format filter" },
  {
    id: "exclusions",
    keys: ["x"],
    label: "exclusions",
    help: "list excluded attempts with reasons",
  },
]);

/** A list of attempts: what every one offers, wherever it was opened from. */
const ATTEMPT_LIST = [
  MOVE,
  { id: "open", keys: ["enter"], label: "open" },
  {
    id: "mark",
    keys: ["space"],
    label: "mark",
    help: "mark an attempt to compare (mark one, then c on another)",
  },
  {
    id: "compare",
    keys: ["c"],
    label: "compare",
    help: "compare with the marked attempt, else a failure with a passing sibling",
  },
] as const;

export const TRIAGE_ATTEMPTS_KEYS = keyTable("Triage · a task's attempts", [
  ...ATTEMPT_LIST,
  { id: "back", keys: ["esc"], label: "tasks", help: "back to the task list" },
]);

/** The attempts a count or a row names (evidence, preview counts, audit cells, funnel rows). */
export const ATTEMPT_SET_KEYS = keyTable("Attempts", [
  ...ATTEMPT_LIST,
  { id: "back", keys: ["esc"], label: "back", help: "back to where the list was opened" },
]);

/** Outcomes and tags by hand, for attempts without a verifier (Triage's attempt list). */
export const TRIAGE_HAND_KEYS = keyTable("Triage · outcomes by hand", [
  { id: "pass", keys: ["+"], label: "pass", help: "give an attempt without a verifier a pass" },
  { id: "fail", keys: ["-"], label: "fail", help: "give an attempt without a verifier a fail" },
  { id: "clear", keys: ["="], label: "clear", help: "clear the outcome given by hand" },
  { id: "tags", keys: ["#"], label: "tags", help: "edit the attempt's tags (comma-separated)" },
]);

export const TRIAGE_EXCLUSIONS_KEYS = keyTable("Triage · exclusions", [
  MOVE,
  { id: "open", keys: ["enter"], label: "open", help: "open the excluded attempt" },
  { id: "back", keys: ["esc", "x"], label: "tasks", help: "back to the task list" },
]);

export const ATTEMPT_KEYS = keyTable("Attempt", [
  MOVE,
  { id: "next", keys: ["n"], label: "next marker" },
  { id: "prev", keys: ["p"], label: "prev marker" },
  {
    id: "output",
    keys: ["o", "enter"],
    label: "output",
    help: "read the selected event's full text in the pager",
  },
  {
    id: "verifier",
    keys: ["v"],
    label: "verifier",
    help: "read the verifier's output in the pager",
  },
  { id: "task", keys: ["t"], label: "task text", help: "read the task text in the pager" },
  {
    id: "compare",
    keys: ["c"],
    label: "vs pass",
    help: "side by side with a passing sibling (or with the marked attempt)",
  },
  {
    id: "mark",
    keys: ["m"],
    label: "mark",
    help: "mark this attempt; c on another compares the two",
  },
]);

export const PAGER_KEYS = keyTable("Pager", [
  {
    ...MOVE,
    keys: [...MOVE.keys, "space"],
    label: "scroll",
    help: "scroll; PgUp/PgDn or Space page; g/G top/bottom",
  },
  {
    id: "side",
    keys: ["left", "right"],
    label: "side",
    show: "←→",
    help: "scroll sideways (no-wrap mode)",
  },
  { id: "search", keys: ["/"], label: "find", help: "search inside the text" },
  { id: "next", keys: ["n"], label: "next", help: "next match" },
  { id: "prev", keys: ["N"], label: "prev", help: "previous match" },
  { id: "wrap", keys: ["w"], label: "wrap", help: "toggle line wrapping" },
  {
    id: "edit",
    keys: ["e"],
    label: "$EDITOR",
    help: "open the text in $EDITOR (a candidate is validated on return)",
  },
  { id: "close", keys: ["esc", "q"], label: "close" },
]);

export const COMPARE_KEYS = keyTable("Compare", [
  { ...MOVE, label: "step" },
  { id: "divergence", keys: ["d"], label: "divergence", help: "jump to the first divergence" },
  { id: "swap", keys: ["s"], label: "swap", help: "swap the two sides" },
  { id: "close", keys: ["esc", "q"], label: "close" },
]);

export const MECHANISMS_KEYS = keyTable("Mechanisms", [
  MOVE,
  {
    id: "label",
    keys: ["l"],
    label: "label",
    help: "label the failed attempts in scope (heuristic), then cluster",
  },
  {
    id: "llm",
    keys: ["L"],
    label: "LLM label",
    help: "label with the LLM (OPENAI_API_KEY; Esc cancels)",
  },
  { id: "rename", keys: ["r"], label: "rename" },
  {
    id: "merge",
    keys: ["m"],
    label: "merge",
    help: "mark a cluster, then m on another merges them under the name you give",
  },
  {
    id: "members",
    keys: ["enter"],
    label: "members",
    help: "list the cluster's attempts (on the needs-review row: the failures to review)",
  },
  {
    id: "exclude",
    keys: ["e"],
    label: "exclude",
    help: "exclude the cluster's attempts with a reason",
  },
  {
    id: "draft",
    keys: ["d"],
    label: "draft",
    help: "draft a candidate from the cluster (refused on the needs-review row)",
  },
  { id: "undo", keys: ["u"], label: "undo", help: "undo the newest cluster decision" },
  { id: "history", keys: ["H"], label: "history", help: "show or hide the decision history" },
  {
    id: "evidence",
    keys: ["v"],
    label: "evidence",
    help: "the cluster's evidence rows (Enter opens the attempt a row quotes)",
  },
]);

export const EVIDENCE_KEYS = keyTable("Mechanisms · evidence", [
  MOVE,
  { id: "open", keys: ["enter"], label: "open", help: "open the attempt the evidence row quotes" },
  { id: "back", keys: ["esc", "v"], label: "clusters" },
]);

export const MEMBERS_KEYS = keyTable("Mechanisms · members", [
  MOVE,
  { id: "open", keys: ["enter"], label: "open" },
  {
    id: "split",
    keys: ["s"],
    label: "split",
    help: "split the selected attempt out of the cluster",
  },
  { id: "back", keys: ["esc"], label: "clusters" },
]);

export const REVIEW_KEYS = keyTable("Mechanisms · needs review", [
  MOVE,
  { id: "open", keys: ["enter"], label: "open", help: "open the attempt" },
  {
    id: "draft",
    keys: ["d"],
    label: "draft",
    help: "refused: review comes first (drafts come from clusters)",
  },
  { id: "back", keys: ["esc"], label: "clusters" },
]);

export const CANDIDATES_KEYS = keyTable("Candidates", [
  MOVE,
  { id: "edit", keys: ["enter"], label: "edit", help: "structured editor with live preview" },
  { id: "promote", keys: ["P"], label: "promote" },
  { id: "retire", keys: ["R"], label: "retire" },
  {
    id: "revise",
    keys: ["V"],
    label: "revise",
    help: "revise a frozen or screened candidate into a new version",
  },
  {
    id: "mark",
    keys: ["space"],
    label: "mark",
    help: "mark or unmark for freezing several candidates into one portfolio",
  },
  {
    id: "freeze",
    keys: ["F"],
    label: "freeze",
    help: "freeze the marked candidates (else the selected one) into one portfolio",
  },
  { id: "yaml", keys: ["y"], label: "YAML", help: "read the candidate file in the pager" },
  REFINE,
  {
    id: "external",
    keys: ["e"],
    label: "$EDITOR",
    help: "edit the file in $EDITOR; saved when it checks out, else kept unsaved in the editor",
  },
]);

export const EDITOR_KEYS = keyTable("Candidate editor", [
  MOVE,
  { id: "edit", keys: ["enter"], label: "edit field" },
  {
    id: "add",
    keys: ["a"],
    label: "add",
    help: "add a condition, an eligibility pattern or a rule (a copy to edit) where the cursor is",
  },
  {
    id: "remove",
    keys: ["x"],
    label: "remove",
    help: "remove the pattern, condition or rule the cursor is in (innermost first)",
  },
  {
    id: "positives",
    keys: ["p"],
    label: "positives",
    help: "list the attempts behind the preview's positives count (fired ones, else all)",
  },
  {
    id: "negatives",
    keys: ["n"],
    label: "negatives",
    help: "list the attempts behind the preview's negatives count (fired ones, else all)",
  },
  {
    id: "silent",
    keys: ["s"],
    label: "silent",
    help: "list the attempts behind the preview's silent count (fired ones, else all)",
  },
  {
    id: "routed",
    keys: ["t"],
    label: "routed",
    help: "list the attempts of the tasks the candidate routes to",
  },
  { id: "yaml", keys: ["y"], label: "YAML", help: "read the edited text in the pager" },
  {
    id: "external",
    keys: ["e"],
    label: "$EDITOR",
    help: "edit the text in $EDITOR; on return it is checked and kept as the unsaved text",
  },
  { id: "errors", keys: ["E"], label: "errors", help: "read every error in full in the pager" },
  { id: "save", keys: ["ctrl+s"], label: "save" },
  {
    id: "close",
    keys: ["esc"],
    label: "close",
    help: "close (asks first when there are unsaved changes)",
  },
]);

/** While the editor holds unsaved changes, leaving it asks first. */
export const UNSAVED_KEYS = keyTable("Candidate editor · unsaved changes", [
  {
    id: "leave",
    keys: [...SCREEN_NUMBERS, "tab", "shift+tab"],
    label: "leave (asks)",
    show: "1–7 Tab",
    help: "switching screen asks what to do with the unsaved changes",
  },
  { id: "quit", keys: ["q"], label: "quit (asks)", help: "quitting asks first too" },
]);

export const CONFIRM_KEYS = keyTable("Unsaved changes", [
  { id: "save", keys: ["s", "ctrl+s"], label: "save", help: "save, then go on" },
  { id: "drop", keys: ["d"], label: "drop", help: "drop the unsaved changes, then go on" },
  {
    id: "keep",
    keys: ["k"],
    label: "keep for later",
    help: "switching screen: keep the unsaved text for when you come back",
  },
  { id: "stay", keys: ["esc", "n"], label: "stay", help: "back to editing" },
]);

export const MENU_KEYS = keyTable("Editor · choose", [
  { id: "move", keys: ["j", "k", "down", "up"], label: "move", show: "↑↓ j/k" },
  { id: "pick", keys: ["enter"], label: "choose" },
  { id: "cancel", keys: ["esc"], label: "cancel" },
]);

const SCREEN_TABS = [
  { id: "audit", keys: ["a"], label: "audit", help: "routing audit (task × candidate)" },
  { id: "replay", keys: ["p"], label: "replay", help: "replay screens" },
  { id: "runs", keys: ["s"], label: "runs", help: "run screens" },
  {
    id: "field",
    keys: ["d"],
    label: "field",
    help: "field screens: what the deployed hook did with each candidate",
  },
] as const satisfies Command[];

export const SCREENS_AUDIT_KEYS = keyTable("Screens · routing audit", [
  ...SCREEN_TABS,
  { ...MOVE, label: "task" },
  {
    id: "column",
    keys: ["left", "right", "h", "l"],
    label: "candidate",
    show: "←→ h/l",
    help: "move across the candidates (columns)",
  },
  {
    id: "open",
    keys: ["enter"],
    label: "attempts",
    help: "list the attempts of the selected cell's task",
  },
]);

export const SCREENS_REPLAY_KEYS = keyTable("Screens · replay", [
  ...SCREEN_TABS,
  MOVE,
  { id: "run", keys: ["r"], label: "run", help: "run the replay screen of the selected candidate" },
  { id: "open", keys: ["enter"], label: "report", help: "read the saved replay screen" },
  { id: "promote", keys: ["P"], label: "promote" },
  { id: "retire", keys: ["R"], label: "retire" },
  REFINE,
]);

export const REFINE_KEYS = keyTable("Refine", [
  MOVE,
  {
    id: "accept",
    keys: ["a"],
    label: "accept",
    help: "write the selected refinement as a new revision (refined from …)",
  },
  { id: "back", keys: ["esc", "f"], label: "back", help: "close without saving anything" },
]);

export const SCREENS_RUNS_KEYS = keyTable("Screens · run screens", [
  ...SCREEN_TABS,
  MOVE,
  {
    id: "open",
    keys: ["enter"],
    label: "report",
    help: "per-arm table, contrasts, forest plot, funnel",
  },
  {
    id: "funnel",
    keys: ["f"],
    label: "funnel",
    help: "the funnel rows per arm (Enter lists the attempts of a row)",
  },
  { id: "refresh", keys: ["r"], label: "refresh" },
]);

export const SCREENS_FIELD_KEYS = keyTable("Screens · field", [
  ...SCREEN_TABS,
  MOVE,
  {
    id: "open",
    keys: ["enter"],
    label: "rules",
    help: "the candidate's rules in the field: counts, and every session each fired in",
  },
  { id: "refresh", keys: ["r"], label: "refresh", help: "read the hook logs again" },
]);

/** A hook report's rule list (Portfolio `l`, Screens · field Enter). */
export const HOOK_REPORT_KEYS = keyTable("Hook report", [
  MOVE,
  {
    id: "open",
    keys: ["enter"],
    label: "sessions",
    help: "the rule's counts and every session it fired in (log file:line, verifier outcome)",
  },
  { id: "back", keys: ["esc"], label: "back" },
]);

export const FUNNEL_KEYS = keyTable("Screens · funnel", [
  MOVE,
  { id: "open", keys: ["enter"], label: "attempts", help: "list the attempts of the funnel row" },
  { id: "back", keys: ["esc", "f"], label: "run screens" },
]);

const RUN_CONTROL = [
  {
    id: "start",
    keys: ["s"],
    label: "run",
    help: "start or resume the screen's run (finished trials are kept and skipped)",
  },
  {
    id: "cancel",
    keys: ["x"],
    label: "stop",
    help: "stop the run after the running trials end (Esc too); s resumes",
  },
  { id: "refresh", keys: ["r"], label: "refresh" },
] as const satisfies Command[];

export const RUNS_KEYS = keyTable("Runs", [
  MOVE,
  { id: "open", keys: ["enter"], label: "schedule", help: "the plan's trials and their status" },
  ...RUN_CONTROL,
]);

export const RUNS_SCHEDULE_KEYS = keyTable("Runs · schedule", [
  { ...MOVE, label: "scroll" },
  ...RUN_CONTROL,
  {
    id: "close",
    keys: ["esc"],
    label: "list",
    help: "back to the run screens (stops a run first)",
  },
]);

export const PORTFOLIO_KEYS = keyTable("Portfolio", [
  MOVE,
  {
    id: "claude",
    keys: ["c"],
    label: "install Claude",
    help: "install the hook for Claude Code (this project)",
  },
  {
    id: "codex",
    keys: ["C"],
    label: "install Codex",
    help: "install the hook for Codex (this project)",
  },
  { id: "unclaude", keys: ["u"], label: "uninstall Claude" },
  { id: "uncodex", keys: ["U"], label: "uninstall Codex" },
  { id: "export", keys: ["x"], label: "export", help: "export for failproofai" },
  {
    id: "report",
    keys: ["l"],
    label: "hook report",
    help: "what the installed hook did, per rule: the workspace's hook logs (.fire/) read as fire hook report does",
  },
  { id: "reload", keys: ["r"], label: "reload" },
]);
