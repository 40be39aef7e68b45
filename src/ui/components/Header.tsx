import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { SCREENS, type ScreenId } from "../contexts/screens.js";
import { useTheme } from "../contexts/ThemeContext.js";

export interface HeaderProps {
  screen: ScreenId;
  /** Counts shown on the right of the second line. */
  counts: string;
  width: number;
}

/** Tabs (number keys) and the workspace counts. */
export function Header({ screen, counts, width }: HeaderProps): ReactNode {
  const theme = useTheme();
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold color={theme.accent}>
          fire{" "}
        </Text>
        {SCREENS.map((s) => (
          <Text
            key={s.id}
            inverse={s.id === screen}
            color={s.id === screen ? theme.accent : theme.muted}
          >
            {width < 80 ? `${s.key} ${s.title} ` : ` ${s.key} ${s.title} `}
          </Text>
        ))}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {counts}
      </Text>
    </Box>
  );
}
