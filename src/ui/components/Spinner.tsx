import { type ReactNode, useEffect, useState } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { isBusy, Status } from "../status.js";
import { Text } from "./Text.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface SpinnerProps {
  status: Status;
}

/** A spinner while busy; a symbol for the other statuses (readable without colour). */
export function Spinner({ status }: SpinnerProps): ReactNode {
  const theme = useTheme();
  const busy = isBusy(status);
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => setFrame((f) => (f + 1) % FRAMES.length), 120);
    return () => clearInterval(t);
  }, [busy]);
  if (busy) return <Text color={theme.accent}>{FRAMES[frame]}</Text>;
  if (status === Status.Error) return <Text color={theme.bad}>✗</Text>;
  if (status === Status.Cancelled) return <Text color={theme.warn}>■</Text>;
  if (status === Status.Done) return <Text color={theme.good}>✓</Text>;
  return <Text color={theme.muted}>·</Text>;
}
