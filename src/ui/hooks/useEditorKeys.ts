import { basename } from "node:path";
import { useState } from "react";
import {
  type AddTarget,
  addCondition,
  addPattern,
  addTargets,
  copyRule,
  type EditResult,
  removeUnit,
  type Unit,
  unitsAt,
} from "../../core/app/editor.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useQuit } from "../contexts/QuitContext.js";
import { cycleScreen, SCREENS, type ScreenId } from "../contexts/screens.js";
import { type Field, fieldsOf } from "../data/fields.js";
import { type Preview, previewSet } from "../data/preview.js";
import { EDITOR_KEYS, UNSAVED_KEYS } from "../keys/tables.js";
import { useExternalEditor } from "./useExternalEditor.js";
import { useKeyTable } from "./useKeyTable.js";
import type { ListCursor } from "./useListCursor.js";

/** Where the user was going when the editor asked about unsaved changes. */
export type Leaving = { kind: "close" } | { kind: "quit" } | { kind: "go"; screen: ScreenId };

export type EditorMode =
  | { kind: "menu"; title: string; options: string[]; pick: (i: number) => void }
  | { kind: "prompt"; label: string; value: string; target: AddTarget }
  | { kind: "confirm"; then: Leaving }
  | { kind: "pager"; title: string; text: string; errors?: boolean };

export interface EditorKeysInput {
  file: string;
  /** The saved text and the unsaved one. */
  text: string;
  readOnly: boolean;
  dirty: boolean;
  fields: Field[];
  cursor: ListCursor;
  preview: Preview;
  setText: (t: string) => void;
  setDraft: (t: string | undefined) => void;
  editing: string | undefined;
  setEditing: (v: string | undefined) => void;
  setProblems: (p: string[]) => void;
  onSave: (text: string) => Promise<string[]>;
  onClose: () => void;
}

type Group = "positives" | "negatives" | "silent" | "routed";

/**
 * The candidate editor's commands (EDITOR_KEYS), the questions it asks (menus, prompts, the
 * unsaved-changes confirm) and the guard that makes leaving with unsaved changes ask first.
 */
export function useEditorKeys(input: EditorKeysInput) {
  const { file, text, readOnly, fields, cursor, preview } = input;
  const { screen } = useAppState();
  const actions = useAppActions();
  const quit = useQuit();
  const openEditor = useExternalEditor();
  const [mode, setMode] = useState<EditorMode | undefined>();
  const closeMode = () => setMode(undefined);
  const here = () => fields[cursor.current()]?.path ?? [];

  // An edit's result: the new text with the cursor on what changed, or why not.
  const apply = (r: EditResult) => {
    closeMode();
    if ("error" in r) {
      actions.notify("warn", r.error);
      return;
    }
    input.setText(r.text);
    input.setProblems([]);
    // the cursor goes to what was added (or next to what was removed)
    const at = r.focus.join(".");
    const next = fieldsOf(r.text, file).findIndex((f) =>
      `${f.path.join(".")}.`.startsWith(`${at}.`),
    );
    if (next >= 0) cursor.setIndex(next);
  };
  const go = (then: Leaving) => {
    if (then.kind === "close") input.onClose();
    else if (then.kind === "quit") quit();
    else actions.go(then.screen);
  };
  const leave = (then: Leaving) => {
    if (input.dirty) setMode({ kind: "confirm", then });
    else {
      input.setDraft(undefined);
      go(then);
    }
  };
  const save = async (then?: Leaving) => {
    const errs = await input.onSave(text);
    input.setProblems(errs);
    if (errs.length === 0 && then) go(then);
  };
  const open = (g: Group) => () => {
    if (!preview.counts || !preview.attempts) return false;
    actions.openAttempts(previewSet(`preview ${g}`, preview.counts[g], preview.attempts[g]));
  };
  const menu = <T extends { label: string }>(title: string, items: T[], run: (x: T) => void) =>
    setMode({
      kind: "menu",
      title,
      options: items.map((x) => x.label),
      pick: (i) => run(items[i]!),
    });
  const add = (t: AddTarget) => {
    if (t.kind === "rule") apply(copyRule(text, file, t.path));
    else setMode({ kind: "prompt", label: t.prompt ?? `${t.label}:`, value: "", target: t });
  };
  const remove = (u: Unit) => apply(removeUnit(text, file, u));
  const writable = (f: () => void) => () => {
    if (readOnly) {
      actions.notify("warn", "frozen candidates are read-only: revise instead (V on the list)");
      return;
    }
    f();
  };

  const idle = input.editing === undefined && mode === undefined;
  useKeyTable(
    EDITOR_KEYS,
    {
      move: cursor.handle,
      edit: writable(() => {
        const f = fields[cursor.current()];
        if (f) input.setEditing(String(f.value));
      }),
      add: writable(() => {
        const rules = fields.filter((f) => f.path[0] === "rules" && f.path[2] === "id").length;
        menu("add where the cursor is:", addTargets(here(), rules), add);
      }),
      remove: writable(() => {
        const units = unitsAt(here());
        if (units.length === 0)
          actions.notify("warn", "nothing to remove here (move to a rule, condition or pattern)");
        else menu("remove (innermost first):", units, remove);
      }),
      positives: open("positives"),
      negatives: open("negatives"),
      silent: open("silent"),
      routed: open("routed"),
      yaml: () =>
        setMode({
          kind: "pager",
          title: `${basename(file)}${input.dirty ? " (unsaved)" : ""}`,
          text,
        }),
      external: writable(() => {
        const r = openEditor(text, basename(file));
        if (r.text === undefined) input.setProblems([r.error ?? "the editor failed"]);
        else {
          input.setText(r.text);
          input.setProblems([]);
        }
      }),
      errors: () => {
        const all = [...preview.errors.map((e) => e.format())];
        if (all.length === 0) return false;
        setMode({
          kind: "pager",
          title: `errors in ${basename(file)}`,
          text: all.join("\n"),
          errors: true,
        });
      },
      save: writable(() => void save()),
      close: () => leave({ kind: "close" }),
    },
    { isActive: idle },
  );
  useKeyTable(
    UNSAVED_KEYS,
    {
      leave: (key, k) => {
        const s = SCREENS.find((x) => x.key === key);
        const target = s ? s.id : cycleScreen(screen, k.shift ? -1 : 1);
        leave({ kind: "go", screen: target });
      },
      quit: () => leave({ kind: "quit" }),
    },
    {
      // not while typing: a text field owns the keys, and the confirm's own keys are letters
      isActive:
        input.dirty &&
        input.editing === undefined &&
        mode?.kind !== "confirm" &&
        mode?.kind !== "prompt",
    },
  );
  return {
    mode,
    closeMode,
    pick: (i: number) => (mode?.kind === "menu" ? mode.pick(i) : undefined),
    setPromptValue: (value: string) => setMode((m) => (m?.kind === "prompt" ? { ...m, value } : m)),
    submitPrompt: (value: string) => {
      if (mode?.kind !== "prompt") return;
      const t = mode.target;
      apply(
        t.kind === "pattern"
          ? addPattern(text, file, t.path, value)
          : addCondition(text, file, t.path, value),
      );
    },
    confirm: {
      save: () => {
        if (mode?.kind !== "confirm") return;
        const then = mode.then;
        closeMode();
        void save(then);
      },
      drop: () => {
        if (mode?.kind !== "confirm") return;
        closeMode();
        input.setDraft(undefined);
        input.setEditing(undefined);
        go(mode.then);
      },
      keep: () => {
        if (mode?.kind !== "confirm" || mode.then.kind !== "go") return;
        closeMode();
        go(mode.then);
      },
    },
  };
}
