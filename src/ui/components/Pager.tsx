import { Box } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { useExternalEditor } from "../hooks/useExternalEditor.js";
import { type KeyLayer, moveBy } from "../hooks/useKeypress.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useSticky } from "../hooks/useSticky.js";
import { PAGER_KEYS } from "../keys/tables.js";
import { MAX_MATCHES, PagerText, pagerRows } from "../text/pager-model.js";
import { wrapLine } from "../text/wrap.js";
import { Text } from "./Text.js";
import { TextField } from "./TextField.js";

export interface PagerProps {
  title: string;
  text: string;
  width: number;
  height: number;
  onClose: () => void;
  /** File name for `e` ($EDITOR), e.g. `output.txt`, `candidate.yaml`. */
  editName?: string;
  /**
   * What the text saved in $EDITOR does on return (a candidate is validated and saved);
   * returns the error text, which the pager shows in full. Without it the pager shows the
   * saved text.
   */
  onEdited?: (text: string) => string | undefined;
  /** Key layer (an overlay pager sees keys before the screen under it). */
  layer?: KeyLayer;
}

/**
 * Reads a long text: j/k, PgUp/PgDn, g/G, ←→ sideways, `/` search with n/N, `w` wrap, `e`
 * $EDITOR. Only the visible window is ever cut from the text (see PagerText).
 */
export function Pager(props: PagerProps): ReactNode {
  const { title, width, height, onClose, editName, onEdited, layer } = props;
  const theme = useTheme();
  const [text, setText] = useState(props.text);
  const doc = useMemo(() => new PagerText(text), [text]);
  const [top, setTop] = useState(0);
  const [left, setLeft] = useState(0);
  const [wrap, setWrap] = useSticky("pager.wrap", false);
  const [searching, setSearching] = useState<string | undefined>();
  const [query, setQuery] = useState("");
  const [matches, setMatches] = useState<number[]>([]);
  const [at, setAt] = useState(-1);
  const [note, setNote] = useState<{ error: boolean; text: string } | undefined>();
  const openEditor = useExternalEditor();
  const noteRows = note ? wrapLine(note.text.replace(/\n+/g, " ⏎ "), width, 4).length : 0;
  // title + rows + status line, one row spare (a full body lets the layout shrink the title away)
  const rows = Math.max(1, height - 3 - noteRows);
  const maxTop = Math.max(0, doc.lineCount - rows);
  const goTo = (line: number) => setTop(Math.max(0, Math.min(maxTop, line)));
  const jump = (by: 1 | -1) => {
    if (matches.length === 0) return;
    const i = (at + by + matches.length) % matches.length;
    setAt(i);
    show(matches[i]!);
  };
  // Scrolls so the match at `offset` is on screen (sideways too, without wrap).
  const show = (offset: number) => {
    const line = doc.lineOf(offset);
    goTo(line - 1);
    const col = offset - doc.lineStart(line);
    if (!wrap) setLeft(col < width - 4 ? 0 : Math.max(0, col - Math.floor(width / 3)));
  };
  useKeyTable(
    PAGER_KEYS,
    {
      move: (input, key) => {
        const m = input === " " ? rows : moveBy(input, key, rows);
        if (m === undefined) return false;
        setTop((t) =>
          Math.max(0, Math.min(maxTop, m === "start" ? 0 : m === "end" ? maxTop : t + m)),
        );
      },
      side: (_i, key) => {
        if (wrap) return;
        const step = Math.max(8, Math.floor(width / 2));
        setLeft((l) => Math.max(0, l + (key.rightArrow ? step : -step)));
      },
      search: () => setSearching(query),
      next: () => jump(1),
      prev: () => jump(-1),
      wrap: () => {
        setWrap((w) => !w);
        setLeft(0);
      },
      edit: () => {
        const r = openEditor(text, editName ?? "text.txt");
        if (r.error !== undefined || r.text === undefined) {
          setNote({ error: true, text: r.error ?? "the editor failed" });
          return;
        }
        const problem = onEdited?.(r.text);
        if (problem) setNote({ error: true, text: problem });
        else
          setNote({
            error: false,
            text: onEdited ? "saved from $EDITOR" : "reloaded from $EDITOR",
          });
        setText(r.text);
      },
      close: onClose,
    },
    { isActive: searching === undefined, ...(layer === undefined ? {} : { layer }) },
  );
  const shown = pagerRows(doc, top, rows, width, { wrap, left });
  const needle = query.toLowerCase();
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {shown.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of a window over a fixed text
        <Text key={`${top}:${i}`} wrap="truncate-end">
          {highlight(r.text || " ", needle)}
        </Text>
      ))}
      {Array.from({ length: rows - shown.length }, (_v, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: filler rows
        <Text key={`pad${i}`}> </Text>
      ))}
      {note
        ? wrapLine(note.text.replace(/\n+/g, " ⏎ "), width, 4).map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of one message
            <Text key={`note${i}`} color={note.error ? theme.bad : theme.good}>
              {l}
            </Text>
          ))
        : null}
      {searching !== undefined ? (
        <TextField
          label="find:"
          value={searching}
          active
          width={width}
          onChange={setSearching}
          onSubmit={(q) => {
            setSearching(undefined);
            setQuery(q);
            const found = doc.find(q);
            setMatches(found);
            const first = found.findIndex((o) => doc.lineOf(o) >= top);
            const i = first === -1 ? 0 : first;
            setAt(found.length ? i : -1);
            if (found.length) show(found[i]!);
          }}
          onCancel={() => setSearching(undefined)}
        />
      ) : (
        <Text color={theme.muted} wrap="truncate-end">
          {`lines ${Math.min(doc.lineCount, top + 1)}–${Math.min(doc.lineCount, top + rows)} of ${doc.lineCount}`}
          {query
            ? ` · “${query}” ${matches.length ? `${at + 1}/${matches.length}${matches.length === MAX_MATCHES ? "+" : ""}` : "not found"}`
            : ""}
          {wrap ? " · wrap" : left ? ` · col ${left + 1}` : ""}
        </Text>
      )}
    </Box>
  );
}

/** The row with every occurrence of the query shown inverse. */
function highlight(row: string, needle: string): ReactNode {
  if (!needle) return row;
  const lower = row.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let i = lower.indexOf(needle); i !== -1; i = lower.indexOf(needle, i + needle.length)) {
    parts.push(row.slice(from, i));
    parts.push(
      <Text key={i} inverse>
        {row.slice(i, i + needle.length)}
      </Text>,
    );
    from = i + needle.length;
  }
  parts.push(row.slice(from));
  return parts;
}
