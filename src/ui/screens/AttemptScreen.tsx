import { Box } from "ink";
import { type ReactNode, useMemo } from "react";
import { passingSibling } from "../../core/app/attempt.js";
import { fmtReward, toolInputText } from "../../core/app/present.js";
import type { Attempt, Event } from "../../core/model/attempt.js";
import { CompareView } from "../components/CompareView.js";
import { Pager } from "../components/Pager.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import {
  attemptMarkers,
  eventLine,
  MARKER_TAG,
  type Marker,
  oneLine,
  siblingsOf,
} from "../data/markers.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { ATTEMPT_KEYS } from "../keys/tables.js";
import { fitCell } from "../text/wrap.js";
import { outcomeToken } from "../theme.js";
import type { ScreenProps } from "./types.js";

interface Reading {
  title: string;
  text: string;
  name: string;
}

/** The attempt marked for a compare (Triage attempt lists and this screen share it). */
export const MARK_KEY = "compare.mark";

/** Screen 2: one attempt's timeline with markers; pager for long texts; side-by-side compare. */
export function AttemptScreen(props: ScreenProps): ReactNode {
  const { data, attemptId, compare } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  if (compare) {
    const [l, r] = compare.map((id) => data.byId.get(id));
    if (l && r) return <CompareView left={l} right={r} {...props} onClose={() => actions.back()} />;
  }
  const attempt = attemptId ? data.byId.get(attemptId) : undefined;
  if (!attempt)
    return (
      <Text color={theme.muted}>
        No attempt open: pick one in Triage (1, Enter on a task, Enter on an attempt) or search with
        /.
      </Text>
    );
  return <Timeline key={attempt.id} attempt={attempt} {...props} />;
}

interface TimelineProps extends ScreenProps {
  attempt: Attempt;
}

function Timeline({ attempt, width, height }: TimelineProps): ReactNode {
  const { data } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const markers = useMemo<Marker[]>(() => {
    if (!data) return [];
    const siblings = siblingsOf(attempt, data.ws.attempts);
    const policies = data.candidates.flatMap((c) => (c.policy ? [c.policy] : []));
    return attemptMarkers(attempt, siblings, data.labels.get(attempt.id), policies);
  }, [data, attempt]);
  const rows = useMemo<Event[]>(() => {
    const end = attempt.events.length;
    return markers.some((m) => m.eventIndex >= end)
      ? [...attempt.events, { index: end, kind: "stop", input: "end of trace (synthetic stop)" }]
      : attempt.events;
  }, [attempt, markers]);
  // sticky: a resize below the minimum size unmounts the screen, and the text stays open
  const [reading, setReading] = useSticky<Reading | undefined>(
    `attempt.reading.${attempt.id}`,
    undefined,
  );
  const [mark, setMark] = useSticky<string | undefined>(MARK_KEY, undefined);
  const listHeight = Math.max(3, height - 7);
  const cursor = useListCursor(rows.length, listHeight, `attempt.${attempt.id}`);
  const marked = useMemo(() => [...new Set(markers.map((m) => m.eventIndex))], [markers]);
  const jump = (dir: "next" | "prev") => {
    const cur = rows[cursor.current()]?.index ?? 0;
    const target =
      dir === "next" ? marked.find((i) => i > cur) : [...marked].reverse().find((i) => i < cur);
    const at = target === undefined ? -1 : rows.findIndex((e) => e.index === target);
    if (at >= 0) cursor.setIndex(at);
  };
  const read = (title: string, text: string, name: string) => setReading({ title, text, name });
  useKeyTable(
    ATTEMPT_KEYS,
    {
      move: cursor.handle,
      next: () => jump("next"),
      prev: () => jump("prev"),
      output: () => {
        const e = rows[cursor.current()];
        if (!e) return false;
        const kept =
          e.outputBytes !== undefined && (e.output?.length ?? 0) < e.outputBytes
            ? ` · kept ${e.output?.length ?? 0} of ${e.outputBytes} characters (outputCap)`
            : "";
        // a shell call reads as its command; another tool's JSON arguments as key: value text
        const input =
          e.kind === "tool_call" && e.command === undefined && e.input !== undefined
            ? toolInputText(e.input)
            : e.input;
        const text = [e.command, input, e.output].filter((x) => x !== undefined).join("\n\n");
        read(
          `event ${e.index} · ${e.kind}${e.tool ? ` · ${e.tool}` : ""}${kept}`,
          text,
          `event-${e.index}.txt`,
        );
      },
      verifier: () =>
        read("verifier output", attempt.verifierOutput ?? "(no verifier output)", "verifier.txt"),
      task: () => read(`task text · ${attempt.taskId}`, attempt.taskText, "task.txt"),
      compare: () => {
        const other =
          mark && mark !== attempt.id
            ? data?.byId.get(mark)
            : passingSibling(attempt, data?.ws.attempts ?? []);
        if (!other) {
          actions.notify(
            "warn",
            `no passing sibling of ${attempt.id}: mark another attempt (m) first`,
          );
          return;
        }
        setMark(undefined);
        actions.openCompare(attempt.id, other.id);
      },
      mark: () => {
        setMark((m) => (m === attempt.id ? undefined : attempt.id));
        actions.notify("info", `marked ${attempt.id}: open another attempt and press c to compare`);
      },
    },
    { isActive: !reading },
  );

  if (reading)
    return (
      <Pager
        title={reading.title}
        text={reading.text}
        editName={reading.name}
        width={width}
        height={height}
        onClose={() => setReading(undefined)}
      />
    );
  const event = rows[cursor.index];
  const here = markers.filter((m) => m.eventIndex === event?.index);
  const byIndex = new Map<number, string>();
  for (const m of markers) {
    const tags = byIndex.get(m.eventIndex) ?? "";
    if (!tags.includes(MARKER_TAG[m.kind])) byIndex.set(m.eventIndex, tags + MARKER_TAG[m.kind]);
  }
  const kindW = width < 60 ? 7 : 12;
  const detail =
    here.length > 0
      ? here.map((m) => `${MARKER_TAG[m.kind]} ${m.kind}: ${m.text}`)
      : [`${markers.length} markers (C capability, ! pre-failure, D detector, F fires)`];
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>
          {fitCell(attempt.id, Math.min(attempt.id.length, Math.max(12, width - 30)))}
        </Text>
        {` · ${attempt.taskId} · `}
        <Text color={outcomeToken(theme, attempt.outcome)}>{attempt.outcome}</Text>
        {attempt.reward !== undefined && attempt.reward !== null
          ? ` (${fmtReward(attempt.reward)})`
          : ""}{" "}
        · {attempt.agent ?? "?"} {attempt.model ?? ""}
        {mark === attempt.id ? <Text color={theme.warn}> · marked</Text> : null}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {oneLine(attempt.taskText)}
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
                {e.kind.slice(0, kindW - 1).padEnd(kindW)}
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
        <Text color={theme.muted}>markers here</Text>
        {detail.slice(0, 3).map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
          <Text key={i} wrap="truncate-end">
            {l}
          </Text>
        ))}
      </Box>
    </Box>
  );
}
