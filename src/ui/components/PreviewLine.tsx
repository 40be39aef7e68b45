import { Box } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { fmtGroup, type Preview, type PreviewCounts } from "../data/preview.js";
import { Text } from "./Text.js";

export interface PreviewLineProps {
  preview: Preview;
  /** Counts of the saved file, shown underneath when an edit changed them. */
  before?: PreviewCounts;
}

const line = (c: PreviewCounts) =>
  `positives ${fmtGroup(c.positives)} · negatives ${fmtGroup(c.negatives)} · silent ${fmtGroup(c.silent)} · routed ${c.routed}`;

/** The live preview: attempts fired / attempts on positives, negatives, silent tasks. */
export function PreviewLine({ preview, before }: PreviewLineProps): ReactNode {
  const theme = useTheme();
  // A text that does not compile has no counts: its errors are the editor's ErrorBlock.
  if (!preview.counts) return null;
  const now = line(preview.counts);
  const was = before ? line(before) : now;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text color={theme.accent}>preview </Text>
        {now}
      </Text>
      {was !== now ? (
        <Text color={theme.muted} wrap="truncate-end">
          {`saved   ${was}`}
        </Text>
      ) : null}
    </Box>
  );
}
