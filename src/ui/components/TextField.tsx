import { Text } from "ink";
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

export interface TextFieldProps {
  label: string;
  value: string;
  onChange: (v: string) => void;
  onSubmit?: (v: string) => void;
  onCancel?: () => void;
  /** Only an active field takes keys. */
  active: boolean;
  width: number;
}

/**
 * A one-line text input with a cursor: ←→ move, Alt/Ctrl-←→ by word, Home/End, Backspace/Del
 * at the cursor; a value longer than the field scrolls sideways to keep the cursor in view.
 * While active it consumes every printable key (Field layer).
 */
export function TextField({
  label,
  value,
  onChange,
  onSubmit,
  onCancel,
  active,
  width,
}: TextFieldProps): ReactNode {
  const theme = useTheme();
  const [cursorAt, setCursorAt] = useState(value.length);
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
  useKeyTable(
    FIELD_KEYS,
    {
      submit: () => onSubmit?.(e().value),
      cancel: () => onCancel?.(),
      left: () => apply(step(e(), -1)),
      right: () => apply(step(e(), 1)),
      wordLeft: () => apply({ ...e(), cursor: wordLeft(e().value, e().cursor) }),
      wordRight: () => apply({ ...e(), cursor: wordRight(e().value, e().cursor) }),
      home: () => apply({ ...e(), cursor: 0 }),
      end: () => apply({ ...e(), cursor: e().value.length }),
      backspace: () => apply(deleteBack(e())),
      delete: () => apply(deleteForward(e())),
      clear: () => apply({ value: "", cursor: 0 }),
    },
    {
      layer: KeyLayer.Field,
      isActive: active,
      fallback: (input, key) => {
        if (key.upArrow || key.downArrow || key.tab || key.pageUp || key.pageDown) return false;
        if (key.ctrl || (key.meta && !key.escape)) return false;
        if (input) apply(insert(e(), input));
        return true;
      },
    },
  );
  const room = Math.max(8, width - label.length - 2);
  const shown = visibleSlice(latest.current, room);
  return (
    <Text wrap="truncate-end">
      <Text color={theme.accent}>{label} </Text>
      {active ? (
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
