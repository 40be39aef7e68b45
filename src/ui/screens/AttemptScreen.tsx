import { Box, Text } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import type { Event } from "../../core/model/attempt.js";
import { printable } from "../../core/printable.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { attemptMarkers, eventLine, MARKER_TAG, type Marker, siblingsOf } from "../data/markers.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { ATTEMPT_KEYS } from "../keys/tables.js";
import { outcomeToken } from "../theme.js";
import type { ScreenProps } from "./types.js";

type Pane = "markers" | "output" | "verifier";

/** Screen 2: one attempt's event timeline with markers, expandable output, verifier output. */
export function AttemptScreen({ width, height }: ScreenProps): ReactNode {
  const { data, attemptId } = useAppState();
  const theme = useTheme();
  const attempt = attemptId ? data?.byId.get(attemptId) : undefined;
  const markers = useMemo<Marker[]>(() => {
    if (!data || !attempt) return [];
    const siblings = siblingsOf(attempt, data.ws.attempts);
    const policies = data.candidates.flatMap((c) => (c.policy ? [c.policy] : []));
    return attemptMarkers(attempt, siblings, data.labels.get(attempt.id), policies);
  }, [data, attempt]);
  const rows = useMemo<Event[]>(() => {
    if (!attempt) return [];
    const end = attempt.events.length;
    return markers.some((m) => m.eventIndex >= end)
      ? [...attempt.events, { index: end, kind: "stop", input: "end of trace (synthetic stop)" }]
      : attempt.events;
  }, [attempt, markers]);
  const [pane, setPane] = useState<Pane>("markers");
  const detailRows = pane === "markers" ? 5 : Math.max(6, Math.floor(height / 2));
  const listHeight = Math.max(3, height - 2 - detailRows);
  const cursor = useListCursor(rows.length, listHeight);
  const marked = useMemo(() => [...new Set(markers.map((m) => m.eventIndex))], [markers]);

  const jump = (dir: "next" | "prev") => {
    const cur = rows[cursor.current()]?.index ?? 0;
    const target =
      dir === "next" ? marked.find((i) => i > cur) : [...marked].reverse().find((i) => i < cur);
    const at = target === undefined ? -1 : rows.findIndex((e) => e.index === target);
    if (at >= 0) cursor.setIndex(at);
  };
  useKeyTable(
    ATTEMPT_KEYS,
    {
      move: cursor.handle,
      next: () => jump("next"),
      prev: () => jump("prev"),
      output: () => setPane((p) => (p === "output" ? "markers" : "output")),
      verifier: () => setPane((p) => (p === "verifier" ? "markers" : "verifier")),
      close: () => {
        if (pane === "markers") return false;
        setPane("markers");
      },
    },
    { isActive: !!attempt },
  );

  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  if (!attempt)
    return (
      <Text color={theme.muted}>
        No attempt open: pick one in Triage (1, Enter on a task, Enter on an attempt) or search with
        /.
      </Text>
    );
  const event = rows[cursor.index];
  const here = markers.filter((m) => m.eventIndex === event?.index);
  const byIndex = new Map<number, string>();
  for (const m of markers) {
    const tags = byIndex.get(m.eventIndex) ?? "";
    if (!tags.includes(MARKER_TAG[m.kind])) byIndex.set(m.eventIndex, tags + MARKER_TAG[m.kind]);
  }
  const detail =
    pane === "verifier"
      ? (attempt.verifierOutput ?? "(no verifier output)").split("\n")
      : pane === "output"
        ? (event?.output ?? event?.input ?? event?.command ?? "").split("\n")
        : here.length > 0
          ? here.map((m) => `${MARKER_TAG[m.kind]} ${m.kind}: ${m.text}`)
          : [`${markers.length} markers (C capability, ! pre-failure, D detector, F fires)`];
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{attempt.id}</Text> · {attempt.taskId} ·{" "}
        <Text color={outcomeToken(theme, attempt.outcome)}>{attempt.outcome}</Text>
        {attempt.reward !== undefined && attempt.reward !== null ? ` (${attempt.reward})` : ""} ·{" "}
        {attempt.agent ?? "?"} {attempt.model ?? ""}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {printable(attempt.taskText.replace(/\s+/g, " "))}
      </Text>
      <VirtualList
        items={rows}
        selected={cursor.index}
        height={listHeight}
        keyOf={(e) => String(e.index)}
        renderRow={(e) => {
          const tags = byIndex.get(e.index) ?? "";
          return (
            <Text wrap="truncate-end">
              <Text color={theme.muted}>{String(e.index).padStart(3)} </Text>
              <Text color={tags.includes("F") ? theme.warn : tags ? theme.info : theme.muted}>
                {tags.padEnd(3)}
              </Text>
              <Text
                color={e.kind === "tool_result" && (e.exitCode ?? 0) !== 0 ? theme.bad : undefined}
              >
                {e.kind.padEnd(12)}
                {eventLine(e)}
              </Text>
            </Text>
          );
        }}
      />
      <Box
        flexDirection="column"
        borderStyle="single"
        borderTop
        borderBottom={false}
        borderLeft={false}
        borderRight={false}
      >
        <Text color={theme.muted}>
          {pane === "verifier"
            ? "verifier output (v closes)"
            : pane === "output"
              ? `full text (o closes)${event?.outputBytes !== undefined && (event.output?.length ?? 0) < event.outputBytes ? ` · kept ${event.output?.length ?? 0} of ${event.outputBytes} characters (outputCap)` : ""}`
              : "markers here"}
        </Text>
        {detail
          .slice(
            pane === "verifier" ? -(detailRows - 2) : 0,
            pane === "verifier" ? undefined : detailRows - 2,
          )
          .map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
            <Text key={i} wrap="truncate-end">
              {l}
            </Text>
          ))}
      </Box>
    </Box>
  );
}
