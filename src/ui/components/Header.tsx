import { Box } from "ink";
import type { ReactNode } from "react";
import { SCREENS, type ScreenId } from "../contexts/screens.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { Text } from "./Text.js";

export interface HeaderProps {
  screen: ScreenId;
  /** Counts shown on the right of the second line. */
  counts: string;
  width: number;
}

type TabStyle = "full" | "compact" | "keys";

const tabText = (s: (typeof SCREENS)[number], style: TabStyle, active: boolean): string =>
  style === "full"
    ? ` ${s.key} ${s.title} `
    : style === "compact" || active
      ? `${s.key} ${s.title} `
      : `${s.key} `;

/** The widest tab style whose row fits the width (titles go last, the active one stays). */
function tabStyle(screen: ScreenId, width: number): TabStyle {
  const fits = (style: TabStyle) =>
    5 + SCREENS.reduce((n, s) => n + tabText(s, style, s.id === screen).length, 0) <= width;
  return fits("full") ? "full" : fits("compact") ? "compact" : "keys";
}

/** Tabs (number keys) and the workspace counts. */
export function Header({ screen, counts, width }: HeaderProps): ReactNode {
  const theme = useTheme();
  const style = tabStyle(screen, width);
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
            {tabText(s, style, s.id === screen)}
          </Text>
        ))}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {counts}
      </Text>
    </Box>
  );
}
