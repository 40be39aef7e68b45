import { Box } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { MENU_KEYS } from "../keys/tables.js";
import { Text } from "./Text.js";

export interface ChoiceMenuProps {
  title: string;
  options: readonly string[];
  onPick: (index: number) => void;
  onCancel: () => void;
}

/** A short list to choose from (what to add, what to remove): j/k, Enter, Esc. */
export function ChoiceMenu({ title, options, onPick, onCancel }: ChoiceMenuProps): ReactNode {
  const theme = useTheme();
  const cursor = useListCursor(options.length, options.length);
  useKeyTable(MENU_KEYS, {
    move: cursor.handle,
    pick: () => onPick(cursor.current()),
    cancel: onCancel,
  });
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent}>
        {title}
      </Text>
      {options.map((o, i) => (
        <Text key={o} wrap="truncate-end" inverse={i === cursor.index}>
          {i === cursor.index ? "▸ " : "  "}
          {o}
        </Text>
      ))}
    </Box>
  );
}
