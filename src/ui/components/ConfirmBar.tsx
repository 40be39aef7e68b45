import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { CONFIRM_KEYS } from "../keys/tables.js";
import { Text } from "./Text.js";

export interface ConfirmBarProps {
  question: string;
  onSave: () => void;
  onDrop: () => void;
  /** Only when going elsewhere: keep the unsaved text for later. */
  onKeep?: () => void;
  onStay: () => void;
}

/** Asks what to do with unsaved changes: s save · d drop · (k keep) · Esc stay. */
export function ConfirmBar({
  question,
  onSave,
  onDrop,
  onKeep,
  onStay,
}: ConfirmBarProps): ReactNode {
  const theme = useTheme();
  useKeyTable(CONFIRM_KEYS, {
    save: onSave,
    drop: onDrop,
    keep: () => (onKeep ? onKeep() : false),
    stay: onStay,
  });
  return (
    <Text color={theme.warn} wrap="wrap">
      {question} s save · d drop{onKeep ? " · k keep for later" : ""} · Esc stay
    </Text>
  );
}
