import { Box } from "ink";
import type { ReactNode } from "react";
import type { RefineResult } from "../../core/app/index.js";
import { figuresLine } from "../../core/app/present.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { REFINE_KEYS } from "../keys/tables.js";
import { Text } from "./Text.js";

export interface RefineViewProps {
  result: RefineResult;
  width: number;
  height: number;
  /** Accept the proposal (writes a revision); the caller closes the view after. */
  onAccept: (index: number) => void;
  onBack: () => void;
}

const cut = (s: string, w: number) => (s.length <= w ? s : `${s.slice(0, Math.max(0, w - 1))}…`);

/**
 * The refinements `fire candidate refine` finds (core/app refine), side by side: the list of
 * proposals, then the selected one's replay screen before | after, the tasks its phrases
 * match, and its YAML diff. Nothing is saved until `a`.
 */
export function RefineView({
  result,
  width,
  height,
  onAccept,
  onBack,
}: RefineViewProps): ReactNode {
  const theme = useTheme();
  const n = result.proposals.length;
  const listHeight = Math.min(Math.max(1, n), 5);
  const cursor = useListCursor(n, listHeight, `refine.${result.candidate}`);
  useKeyTable(REFINE_KEYS, {
    move: cursor.handle,
    accept: () => (n > 0 ? onAccept(cursor.current()) : false),
    back: onBack,
  });
  const p = result.proposals[cursor.index];
  const half = Math.max(20, Math.floor((width - 3) / 2));
  const head = `refine ${result.candidate}: ${result.tried} replayed in ${(result.elapsedMs / 1000).toFixed(1)} s${result.timedOut ? " (budget reached)" : ""}`;
  const lines: ReactNode[] = [];
  if (result.caution)
    lines.push(
      <Text key="c" color={theme.warn}>
        {cut(`caution: ${result.caution}`, width)}
      </Text>,
    );
  if (p) {
    const before = figuresLine(result.before).split(": ");
    const after = figuresLine(p.after).split(": ");
    lines.push(
      <Text key="cols" wrap="truncate-end">
        <Text color={theme.muted}>{cut(`before  ${before[0]}`, half).padEnd(half)}</Text>
        {" │ "}
        <Text color={p.after.verdict === "promising" ? theme.accent : undefined}>
          {cut(`after   ${after[0]}`, half)}
        </Text>
      </Text>,
    );
    const bParts = (before[1] ?? "").split(", ");
    const aParts = (after[1] ?? "").split(", ");
    for (const [i, b] of bParts.entries())
      lines.push(
        <Text key={`f${i}`} wrap="truncate-end">
          {cut(`  ${b}`, half).padEnd(half)}
          {" │ "}
          {cut(`  ${aParts[i] ?? ""}`, half)}
        </Text>,
      );
    for (const s of p.summary) lines.push(<Text key={`s${s}`}>{cut(`- ${s}`, width)}</Text>);
    for (const ph of p.phrases)
      lines.push(
        <Text key={`p${ph.label}${ph.list}`} color={theme.muted}>
          {cut(
            `  ${ph.label} (${ph.list}): positives ${ph.positives.join(", ") || "none"}; ${ph.list === "noneOf" ? "negatives" : "others"} ${ph.negatives.join(", ") || "none"}`,
            width,
          )}
        </Text>,
      );
    if (p.gained.length)
      lines.push(
        <Text key="g">{cut(`  fires in time now on ${p.gained.join(", ")}`, width)}</Text>,
      );
    if (p.dropped.length)
      lines.push(
        <Text key="d">{cut(`  no longer fires on / routes ${p.dropped.join(", ")}`, width)}</Text>,
      );
    if (p.added.length)
      lines.push(
        <Text key="a" color={theme.warn}>
          {cut(`  now fires on / routes ${p.added.join(", ")}`, width)}
        </Text>,
      );
    lines.push(
      <Text
        key="t"
        color={theme.muted}
      >{`  tokens added per positive: ${p.tokensAdded >= 0 ? "+" : ""}${p.tokensAdded}`}</Text>,
    );
    for (const [i, d] of p.diff.entries())
      lines.push(
        <Text
          key={`x${i}`}
          wrap="truncate-end"
          color={d.startsWith("+") ? theme.accent : d.startsWith("-") ? theme.warn : theme.muted}
        >
          {d}
        </Text>,
      );
  } else {
    lines.push(<Text key="b">{cut(`before ${figuresLine(result.before)}`, width)}</Text>);
    if (result.separation === "nothing-to-refine")
      lines.push(
        <Text key="n">promising, no positive missed, no negative fired: nothing to refine</Text>,
      );
    const ns = result.noSeparation;
    if (ns) {
      lines.push(
        <Text key="h" bold>
          no refinement separates its positives from its negatives:
        </Text>,
      );
      for (const [i, r] of ns.reasons.entries())
        lines.push(<Text key={`r${i}`}>{cut(`- ${r}`, width)}</Text>);
      lines.push(<Text key="rt">{cut(`retire it (R in the list): ${ns.retire}`, width)}</Text>);
      if (ns.needsMoreData.length)
        lines.push(<Text key="nd">or keep it as needing more data; what would decide:</Text>);
      for (const [i, d] of ns.needsMoreData.entries())
        lines.push(<Text key={`m${i}`}>{cut(`- ${d}`, width)}</Text>);
    }
  }
  const rest = Math.max(1, height - 2 - listHeight);
  const top = Math.max(0, cursor.index - listHeight + 1);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {head}
      </Text>
      {result.proposals.slice(top, top + listHeight).map((q, i) => {
        const sel = top + i === cursor.index;
        return (
          <Text key={q.id} inverse={sel} wrap="truncate-end">
            {`${q.id}  ${q.after.verdict.padEnd(10)} ${q.summary.join("; ")}`}
          </Text>
        );
      })}
      {lines.slice(0, rest)}
    </Box>
  );
}
