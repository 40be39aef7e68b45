import { Box } from "ink";
import type { ReactNode } from "react";
import type { JobProgress, Message } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { Status } from "../status.js";
import { ProgressBar } from "./ProgressBar.js";
import { Spinner } from "./Spinner.js";
import { Text } from "./Text.js";

export interface StatusLineProps {
  status: Status;
  job?: JobProgress;
  message?: Message;
  hints: string;
  width: number;
}

/** The running job with progress (Esc cancels) or the last message, then the key hints. */
export function StatusLine({ status, job, message, hints, width }: StatusLineProps): ReactNode {
  const theme = useTheme();
  const colour =
    message?.level === "error" ? theme.bad : message?.level === "warn" ? theme.warn : theme.good;
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        {/* a message's own level wins over the last job's symbol (a warning after a done job);
            it never shrinks: a message longer than the line is cut, not the symbol */}
        <Box flexShrink={0}>
          {!job && message?.level === "warn" && status !== Status.Cancelled ? (
            <Text color={theme.warn}>!</Text>
          ) : !job && message?.level === "error" ? (
            <Text color={theme.bad}>✗</Text>
          ) : (
            <Spinner status={status} />
          )}
          <Text> </Text>
        </Box>
        {job ? (
          <Text wrap="truncate-end">
            {job.label}{" "}
            <ProgressBar done={job.done} {...(job.total ? { total: job.total } : {})} width={16} />
            {job.costUsd !== undefined ? ` $${job.costUsd.toFixed(4)}` : ""}
            {job.cacheHits !== undefined ? ` cache hits ${job.cacheHits}` : ""}
            <Text color={theme.muted}> (Esc cancels)</Text>
          </Text>
        ) : message ? (
          <Text color={colour} wrap="truncate-end">
            {message.level === "error" ? "error: " : ""}
            {message.text}
          </Text>
        ) : (
          <Text color={theme.muted}>{status === Status.Idle ? "ready" : status}</Text>
        )}
      </Box>
      <Text color={theme.muted} wrap="truncate-end">
        {hints}
      </Text>
    </Box>
  );
}
