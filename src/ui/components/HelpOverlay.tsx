import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { KeyLayer, useKeypress } from "../hooks/useKeypress.js";

/** The one keymap (global keys, then the keys of each screen). */
export const KEYMAP: readonly [string, string][] = [
  ["1–6 / Tab", "switch screen (Shift-Tab back)"],
  ["↑↓ j/k", "move; PgUp/PgDn page; g/G first/last"],
  ["Enter", "open the selected row"],
  ["Esc", "cancel running work, else back / close"],
  ["/", "fuzzy search tasks, attempts, clusters, candidates"],
  ["?", "this help"],
  ["q", "quit"],
  ["Triage", "f cycle outcome filter, a cycle arm, x show exclusions"],
  ["Attempt", "n/p next/previous marker, o expand output, v verifier output"],
  [
    "Mechanisms",
    "l label (heuristic), L label (LLM), r rename, m merge, s split, e exclude, d draft",
  ],
  ["Candidates", "Enter edit, ↑↓ field, type to edit, Ctrl-S save, P promote, R retire, F freeze"],
  ["Screens", "r replay all candidates, Enter open report"],
  ["Portfolio", "c/C install hook Claude/Codex, u/U uninstall"],
];

export interface HelpOverlayProps {
  width: number;
  onClose: () => void;
}

/** The keymap; any key closes it (and does nothing else). */
export function HelpOverlay({ width, onClose }: HelpOverlayProps): ReactNode {
  const theme = useTheme();
  useKeypress(
    () => {
      onClose();
      return true;
    },
    { layer: KeyLayer.Overlay },
  );
  return (
    <Box flexDirection="column" borderStyle="round" width={width} paddingX={1}>
      <Text bold color={theme.accent}>
        Keys (any key closes)
      </Text>
      {KEYMAP.map(([k, what]) => (
        <Text key={k} wrap="truncate-end">
          <Text color={theme.accent}>{k.padEnd(12)}</Text>
          {what}
        </Text>
      ))}
    </Box>
  );
}
