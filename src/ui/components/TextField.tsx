import { type ReactNode, useRef, useState } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { KeyLayer } from "../hooks/useKeypress.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { FIELD_KEYS } from "../keys/tables.js";
import {
  deleteBack,
  deleteForward,
  type EditState,
  insert,
  step,
  visibleSlice,
  wordLeft,
  wordRight,
} from "../text/edit.js";
import { Text } from "./Text.js";

export interface TextFieldProps {
  label: string;
  value: string;
  onChange: (v: string) => void;
  onSubmit?: (v: string) => void;
  onCancel?: () => void;
  /** Only an active field takes keys. */
  active: boolean;
  width: number;
  /**
   * Opt-in: the initial value starts selected, as a pre-filled field does in common text
   * inputs. The first printable key replaces it, Backspace/Delete/Ctrl-U clear it, and a
   * move (←→, word moves, Home/End) keeps it and only places the cursor (← and Home at its
   * start, → and End at its end). Enter keeps it unchanged.
   */
  selectInitial?: boolean;
}

/**
 * A one-line text input with a cursor: ←→ move, Alt/Ctrl-←→ by word, Home/End, Backspace/Del
 * at the cursor; a value longer than the field scrolls sideways to keep the cursor in view.
 * While active it consumes every printable key (Field layer). With `selectInitial` the
 * pre-filled value shows selected until the first key (see the prop).
 */
export function TextField({
  label,
  value,
  onChange,
  onSubmit,
  onCancel,
  active,
  width,
  selectInitial = false,
}: TextFieldProps): ReactNode {
  const theme = useTheme();
  const [cursorAt, setCursorAt] = useState(value.length);
  // Whether the whole value is selected (only the pre-filled value, until the first key).
  const [selected, setSelectedState] = useState(selectInitial && value.length > 0);
  const selectedRef = useRef(selected);
  const deselect = () => {
    selectedRef.current = false;
    setSelectedState(false);
  };
  // The latest state, also between renders (typing can outpace frames).
  const latest = useRef<EditState>({ value, cursor: cursorAt });
  if (latest.current.value !== value)
    latest.current = { value, cursor: Math.min(latest.current.cursor, value.length) };
  const apply = (next: EditState) => {
    const changed = next.value !== latest.current.value;
    latest.current = next;
    setCursorAt(next.cursor);
    if (changed) onChange(next.value);
  };
  const e = () => latest.current;
  /**
   * An edit that acts on the selection while there is one: `onSelection` gives the state
   * the key makes of a selected value (a move places the cursor, a deletion clears).
   */
  const edit = (normal: () => EditState, onSelection: () => EditState) => (): void => {
    if (selectedRef.current) {
      deselect();
      apply(onSelection());
    } else apply(normal());
  };
  const toStart = () => ({ ...e(), cursor: 0 });
  const toEnd = () => ({ ...e(), cursor: e().value.length });
  const cleared = () => ({ value: "", cursor: 0 });
  useKeyTable(
    FIELD_KEYS,
    {
      submit: () => onSubmit?.(e().value),
      cancel: () => onCancel?.(),
      left: edit(() => step(e(), -1), toStart),
      right: edit(() => step(e(), 1), toEnd),
      wordLeft: edit(() => ({ ...e(), cursor: wordLeft(e().value, e().cursor) }), toStart),
      wordRight: edit(() => ({ ...e(), cursor: wordRight(e().value, e().cursor) }), toEnd),
      home: edit(toStart, toStart),
      end: edit(toEnd, toEnd),
      backspace: edit(() => deleteBack(e()), cleared),
      delete: edit(() => deleteForward(e()), cleared),
      clear: edit(cleared, cleared),
    },
    {
      layer: KeyLayer.Field,
      isActive: active,
      fallback: (input, key) => {
        if (key.upArrow || key.downArrow || key.tab || key.pageUp || key.pageDown) return false;
        if (key.ctrl || (key.meta && !key.escape)) return false;
        if (!input) return true;
        if (selectedRef.current) {
          // the first printable key replaces the selected value
          deselect();
          apply(insert({ value: "", cursor: 0 }, input));
        } else apply(insert(e(), input));
        return true;
      },
    },
  );
  const room = Math.max(8, width - label.length - 2);
  const shown = visibleSlice(latest.current, room);
  return (
    <Text wrap="truncate-end">
      <Text color={theme.accent}>{label} </Text>
      {active && selected ? (
        <>
          <Text inverse>{shown.before}</Text>
          <Text inverse>{shown.at}</Text>
          {shown.after}
        </>
      ) : active ? (
        <>
          {shown.before}
          <Text inverse>{shown.at}</Text>
          {shown.after}
        </>
      ) : (
        visibleSlice({ value, cursor: 0 }, room).before +
        visibleSlice({ value, cursor: 0 }, room).at +
        visibleSlice({ value, cursor: 0 }, room).after
      )}
    </Text>
  );
}
