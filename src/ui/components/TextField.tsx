import { Text } from "ink";
import { type ReactNode, useRef } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { KeyLayer, useKeypress } from "../hooks/useKeypress.js";

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

/** A one-line text input; while active it consumes every printable key (Field layer). */
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
  // The latest value, also between renders (typing can outpace frames).
  const latest = useRef(value);
  latest.current = value;
  const change = (v: string) => {
    latest.current = v;
    onChange(v);
  };
  useKeypress(
    (input, key) => {
      if (key.escape) {
        onCancel?.();
        return true;
      }
      if (key.return) {
        onSubmit?.(latest.current);
        return true;
      }
      if (key.backspace || key.delete) {
        change(latest.current.slice(0, -1));
        return true;
      }
      if (key.ctrl && input === "u") {
        change("");
        return true;
      }
      if (key.upArrow || key.downArrow || key.tab || key.pageUp || key.pageDown) return false;
      if (key.ctrl || key.meta) return false;
      if (input) {
        change(latest.current + input);
        return true;
      }
      return true;
    },
    { layer: KeyLayer.Field, isActive: active },
  );
  const room = Math.max(8, width - label.length - 3);
  const shown = value.length > room ? `…${value.slice(value.length - room + 1)}` : value;
  return (
    <Text>
      <Text color={theme.accent}>{label} </Text>
      <Text>{shown}</Text>
      {active ? <Text inverse> </Text> : null}
    </Text>
  );
}
