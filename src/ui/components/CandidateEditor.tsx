import { Box, Text } from "ink";
import { type ReactNode, useDeferredValue, useMemo, useState } from "react";
import type { Attempt } from "../../core/model/attempt.js";
import { useAppActions } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { fieldsOf, pathLabel, setField } from "../data/fields.js";
import { type PreviewContext, previewSet, previewText } from "../data/preview.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { EDITOR_KEYS } from "../keys/tables.js";
import { PreviewLine } from "./PreviewLine.js";
import { TextField } from "./TextField.js";
import { VirtualList } from "./VirtualList.js";

export interface CandidateEditorProps {
  file: string;
  /** The saved text. */
  text: string;
  readOnly: boolean;
  attempts: Attempt[];
  /** The workspace's policies and screen seed, so the preview counts what the replay screen counts. */
  screen: PreviewContext;
  width: number;
  height: number;
  onSave: (text: string) => void;
  onClose: () => void;
}

/**
 * Field editor for eligibility, tracking, rules (messages, nudge limits) and the behaviour
 * marker, with a live preview: every change is compiled and replayed over the workspace.
 */
export function CandidateEditor(props: CandidateEditorProps): ReactNode {
  const { file, readOnly, attempts, screen, width, height, onSave, onClose } = props;
  const theme = useTheme();
  const actions = useAppActions();
  // The unsaved text outlives the screen (a count opened from the preview, then Esc back).
  const [draft, setDraft] = useSticky<string | undefined>(`editor.draft.${file}`, undefined);
  const text = draft ?? props.text;
  const setText = (t: string) => setDraft(t === props.text ? undefined : t);
  const [editing, setEditing] = useState<string | undefined>();
  const fields = useMemo(() => fieldsOf(text, file), [text, file]);
  const listHeight = Math.max(3, height - 6);
  const cursor = useListCursor(fields.length, listHeight, `editor.cursor.${file}`);
  const field = fields[cursor.index];
  const shown = editing !== undefined && field ? setField(text, file, field, editing) : text;
  // Typing renders first; the replay catches up on the deferred text.
  const deferred = useDeferredValue(shown);
  const preview = useMemo(
    () => previewText(deferred, file, attempts, screen),
    [deferred, file, attempts, screen],
  );
  const before = useMemo(
    () => previewText(props.text, file, attempts, screen).counts,
    [props.text, file, attempts, screen],
  );
  const dirty = shown !== props.text;
  const open = (name: "positives" | "negatives" | "silent" | "routed") => () => {
    const counts = preview.counts;
    const sets = preview.attempts;
    if (!counts || !sets) return false;
    actions.openAttempts(previewSet(`preview ${name}`, counts[name], sets[name]));
  };

  useKeyTable(
    EDITOR_KEYS,
    {
      move: cursor.handle,
      edit: () => {
        const f = fields[cursor.current()];
        if (!f || readOnly) return;
        setEditing(String(f.value));
      },
      positives: open("positives"),
      negatives: open("negatives"),
      silent: open("silent"),
      routed: open("routed"),
      save: () => {
        if (!readOnly) onSave(text);
      },
      close: () => {
        setDraft(undefined);
        onClose();
      },
    },
    { isActive: editing === undefined },
  );

  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{file.split("/").slice(-2).join("/")}</Text>
        {readOnly ? <Text color={theme.warn}> frozen: read-only (revise instead)</Text> : null}
        {dirty ? <Text color={theme.warn}> modified (Ctrl-S saves, Esc discards)</Text> : null}
      </Text>
      <VirtualList
        items={fields}
        selected={cursor.index}
        height={listHeight}
        keyOf={(f) => pathLabel(f.path)}
        empty="(the file does not parse)"
        renderRow={(f, i) => (
          <Text wrap="truncate-end">
            <Text color={theme.muted}>{pathLabel(f.path).padEnd(28)} </Text>
            {i === cursor.index && editing !== undefined
              ? ""
              : String(f.value).replace(/\s+/g, " ")}
          </Text>
        )}
      />
      {editing !== undefined && field ? (
        <TextField
          label={`${pathLabel(field.path)}:`}
          value={editing}
          active
          width={width}
          onChange={setEditing}
          onSubmit={(v) => {
            setText(setField(text, file, field, v));
            setEditing(undefined);
          }}
          onCancel={() => setEditing(undefined)}
        />
      ) : null}
      <PreviewLine preview={preview} {...(before ? { before } : {})} />
    </Box>
  );
}
