import { basename } from "node:path";
import { Box } from "ink";
import { type ReactNode, useDeferredValue, useEffect, useMemo, useState } from "react";
import { checkCandidateText } from "../../core/app/editor.js";
import type { Attempt } from "../../core/model/attempt.js";
import { reasonText } from "../contexts/errors.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { fieldsOf, pathLabel, setField } from "../data/fields.js";
import { type Preview, type PreviewContext, previewText } from "../data/preview.js";
import { useEditorKeys } from "../hooks/useEditorKeys.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { ChoiceMenu } from "./ChoiceMenu.js";
import { ConfirmBar } from "./ConfirmBar.js";
import { ErrorBlock } from "./ErrorBlock.js";
import { Pager } from "./Pager.js";
import { PreviewLine } from "./PreviewLine.js";
import { Text } from "./Text.js";
import { TextField } from "./TextField.js";
import { VirtualList } from "./VirtualList.js";

type Counts = NonNullable<Preview["counts"]>;

export interface CandidateEditorProps {
  file: string;
  /** The saved text. */
  text: string;
  /** Unsaved text to start from (an $EDITOR edit that did not check out). */
  draft?: string;
  readOnly: boolean;
  attempts: Attempt[];
  /** The workspace's policies and screen seed, so the preview counts what the replay screen counts. */
  screen: PreviewContext;
  width: number;
  height: number;
  /** Saves through the validated core path; resolves to the errors (none when saved). */
  onSave: (text: string) => Promise<string[]>;
  onClose: () => void;
}

/**
 * Structured editor for eligibility, tracking, rules and the behaviour marker: edit a field,
 * add / remove conditions, patterns and rules, with a live preview (every change is compiled
 * and replayed over the workspace). Unsaved changes outlive the screen and ask before they
 * are dropped; errors are shown in full.
 */
export function CandidateEditor(props: CandidateEditorProps): ReactNode {
  const { file, readOnly, attempts, screen, width, height } = props;
  const theme = useTheme();
  // The unsaved text outlives the screen (a count opened from the preview, then Esc back).
  const [draft, setDraft] = useSticky<string | undefined>(`editor.draft.${file}`, undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: seeded once, when opened with one
  useEffect(() => {
    if (props.draft !== undefined) setDraft(props.draft);
  }, []);
  const text = draft ?? props.text;
  const setText = (t: string) => setDraft(t === props.text ? undefined : t);
  const [editing, setEditing] = useState<string | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const fields = useMemo(() => fieldsOf(text, file), [text, file]);
  const cursor = useListCursor(fields.length, Math.max(3, height - 6), `editor.cursor.${file}`);
  const current = fields[cursor.index];
  const shown = editing !== undefined && current ? setField(text, file, current, editing) : text;
  // Typing renders first; the replay catches up on the deferred text. The compile and
  // replay run after the frame is written (they read every attempt's events): the editor
  // opens on the file's text at once and the preview follows.
  const deferred = useDeferredValue(shown);
  const [computed, setComputed] = useState<{ text: string; preview: Preview; before?: Counts }>();
  useEffect(() => {
    const t = setImmediate(() => {
      const preview = previewText(deferred, file, attempts, screen);
      const before =
        deferred === props.text
          ? preview.counts
          : previewText(props.text, file, attempts, screen).counts;
      setComputed({ text: deferred, preview, ...(before ? { before } : {}) });
    });
    return () => clearImmediate(t);
  }, [deferred, props.text, file, attempts, screen]);
  const preview: Preview = computed?.preview ?? { errors: [] };
  const before = computed?.before;
  const previewing = computed?.text !== deferred;
  const errors = [...problems, ...preview.errors.map(reasonText)];
  const dirty = shown !== props.text;
  const k = useEditorKeys({
    ...props,
    text,
    dirty,
    fields,
    cursor,
    preview,
    setText,
    setDraft,
    editing,
    setEditing,
    setProblems,
  });
  const { mode } = k;
  const errorRows = errors.length ? Math.min(6, Math.max(2, height - 14)) : 0;
  const modeRows =
    mode?.kind === "menu" ? mode.options.length + 1 : mode?.kind === "confirm" ? 2 : 0;
  const listHeight = Math.max(3, height - 6 - errorRows - modeRows);

  if (mode?.kind === "pager")
    return (
      <Pager
        title={mode.title}
        text={mode.text}
        width={width}
        height={height}
        editName={mode.errors ? "errors.txt" : basename(file)}
        onClose={k.closeMode}
        {...(mode.errors || readOnly
          ? {}
          : {
              onEdited: (t: string) => {
                setText(t);
                const errs = checkCandidateText(file, t);
                return errs.length
                  ? `kept unsaved; it does not check out:\n${errs.map(reasonText).join("\n")}`
                  : undefined;
              },
            })}
      />
    );
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{file.split("/").slice(-2).join("/")}</Text>
        {readOnly ? <Text color={theme.warn}> frozen: read-only (revise instead)</Text> : null}
        {dirty ? <Text color={theme.warn}> modified (Ctrl-S saves, Esc asks)</Text> : null}
      </Text>
      <VirtualList
        items={fields}
        selected={cursor.index}
        height={listHeight}
        keyOf={(f) => pathLabel(f.path)}
        empty="(the text does not parse: e opens it in $EDITOR, E reads the errors)"
        renderRow={(f, i) => (
          <Text wrap="truncate-end">
            <Text color={theme.muted}>{pathLabel(f.path).padEnd(28)} </Text>
            {i === cursor.index && editing !== undefined
              ? ""
              : String(f.value).replace(/\s+/g, " ")}
          </Text>
        )}
      />
      {editing !== undefined && current ? (
        <TextField
          label={`${pathLabel(current.path)}:`}
          value={editing}
          active
          width={width}
          onChange={setEditing}
          onSubmit={(v) => {
            setText(setField(text, file, current, v));
            setEditing(undefined);
          }}
          onCancel={() => setEditing(undefined)}
        />
      ) : null}
      {mode?.kind === "prompt" ? (
        <TextField
          label={mode.label}
          value={mode.value}
          active
          width={width}
          onChange={k.setPromptValue}
          onSubmit={k.submitPrompt}
          onCancel={k.closeMode}
        />
      ) : null}
      {mode?.kind === "menu" ? (
        <ChoiceMenu
          title={mode.title}
          options={mode.options}
          onPick={k.pick}
          onCancel={k.closeMode}
        />
      ) : null}
      {mode?.kind === "confirm" ? (
        <ConfirmBar
          question={`Unsaved changes to ${basename(file)}.`}
          onSave={k.confirm.save}
          onDrop={k.confirm.drop}
          {...(mode.then.kind === "go" ? { onKeep: k.confirm.keep } : {})}
          onStay={k.closeMode}
        />
      ) : null}
      <ErrorBlock errors={errors} width={width} rows={errorRows} />
      {preview.counts ? (
        <PreviewLine preview={preview} {...(before ? { before } : {})} />
      ) : previewing ? (
        <Text color={theme.muted}>preview: compiling and replaying…</Text>
      ) : null}
    </Box>
  );
}
