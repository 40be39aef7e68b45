import { Box } from "ink";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import type { Cluster } from "../../core/mine/cluster.js";
import { DecisionHistory } from "../components/DecisionHistory.js";
import { clusterStrength, EvidenceRows } from "../components/EvidenceRows.js";
import { REVIEW_FIRST, ReviewList } from "../components/ReviewList.js";
import { Text } from "../components/Text.js";
import { TextField } from "../components/TextField.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import { MECHANISMS_KEYS, MEMBERS_KEYS } from "../keys/tables.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell } from "../text/wrap.js";
import type { ScreenProps } from "./types.js";

type Prompt =
  | { kind: "rename" | "exclude"; value: string }
  | { kind: "merge-name"; value: string; groups: string[][]; what: string }
  | undefined;

/** The row after the clusters that opens the failures kept for review. */
const REVIEW_ROW = "needs-review" as const;
type Row = Cluster | typeof REVIEW_ROW;

/** Screen 3: clusters; rename / merge / split / exclude; labelling; draft a candidate. */
export function MechanismsScreen({ width, height }: ScreenProps): ReactNode {
  const { mine, mineRead, data, clusterId } = useAppState();
  const actions = useAppActions();
  const wb = useWorkbench();
  const theme = useTheme();
  const clusters = mine?.clusters ?? [];
  const review = mine?.review ?? [];
  const rows: Row[] = review.length > 0 ? [...clusters, REVIEW_ROW] : clusters;
  const listHeight = Math.max(3, height - 9);
  const cursor = useListCursor(rows.length, listHeight, "mechanisms.clusters");
  const [members, setMembers] = useSticky("mechanisms.members", false);
  const [history, setHistory] = useSticky("mechanisms.history", false);
  const [evidence, setEvidence] = useSticky("mechanisms.evidence", false);
  const [reviewOpen, setReviewOpen] = useSticky("mechanisms.review", false);
  const onReviewRow = review.length > 0 && cursor.index === clusters.length;
  const labelsById = useMemo(
    () => new Map((mine?.labels ?? []).map((l) => [l.attemptId, l])),
    [mine],
  );
  const cluster: Cluster | undefined = clusters[cursor.index];
  const memberCursor = useListCursor(cluster?.attemptIds.length ?? 0, 5, "mechanisms.member");
  const memberSel = memberCursor.index;
  const [mark, setMarkState] = useState<string | undefined>();
  const markRef = useRef<string | undefined>(undefined);
  const setMark = (id: string | undefined) => {
    markRef.current = id;
    setMarkState(id);
  };
  const [prompt, setPrompt] = useState<Prompt>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow a search jump only
  useEffect(() => {
    const i = clusters.findIndex((c) => c.id === clusterId);
    if (i >= 0) cursor.setIndex(i);
  }, [clusterId]);

  const submit = (value: string) => {
    const p = prompt;
    setPrompt(undefined);
    if (p?.kind === "merge-name") {
      const name = value.trim();
      void wb.decide(
        { op: "merge", groups: p.groups, ...(name ? { name } : {}) },
        `${p.what}${name ? ` → ${name}` : ""}`,
      );
      return;
    }
    if (!cluster || !p || !value.trim()) return;
    if (p.kind === "rename")
      void wb.decide(
        { op: "rename", members: cluster.attemptIds, name: value.trim() },
        `rename ${cluster.id}`,
      );
    else if (p.kind === "exclude")
      void wb.decide(
        { op: "exclude", attemptIds: cluster.attemptIds, reason: value.trim() },
        `exclude ${cluster.id}`,
      );
  };

  // The cursor's latest row (keys can arrive before the next frame).
  const current = () => clusters[cursor.current()];
  const withCluster = (f: (c: Cluster) => void) => () => {
    const c = current();
    if (!c) return false;
    f(c);
  };
  const onReview = () => review.length > 0 && cursor.current() === clusters.length;
  useKeyTable(
    MECHANISMS_KEYS,
    {
      move: cursor.handle,
      label: () => void wb.mine("heuristic"),
      llm: () => void wb.mine("llm"),
      rename: withCluster((c) => setPrompt({ kind: "rename", value: c.name })),
      exclude: withCluster(() => setPrompt({ kind: "exclude", value: "" })),
      members: () => {
        if (onReview()) return void setReviewOpen(true);
        return withCluster(() => {
          memberCursor.setIndex(0);
          setMembers(true);
        })();
      },
      draft: () => {
        if (onReview()) return void actions.notify("warn", REVIEW_FIRST);
        return withCluster((c) => {
          void wb.draft(c).then((file) => {
            if (file) actions.openCandidate(file);
          });
        })();
      },
      merge: withCluster((c) => merge(c)),
      undo: () => void wb.undo(),
      history: () => setHistory(!history),
      evidence: withCluster(() => setEvidence(true)),
    },
    {
      isActive:
        !!data && !prompt && !members && !(evidence && cluster) && !(reviewOpen && onReviewRow),
    },
  );
  const merge = (c: Cluster) => {
    const mark = markRef.current;
    if (!mark) {
      setMark(c.id);
      actions.notify("info", `marked ${c.id}: move to another cluster and press m to merge`);
    } else if (mark === c.id) setMark(undefined);
    else {
      const other = clusters.find((x) => x.id === mark);
      setMark(undefined);
      // The merged cluster takes the name the user gives (pre-filled with the marked one's).
      if (other)
        setPrompt({
          kind: "merge-name",
          value: other.name,
          groups: [other.attemptIds, c.attemptIds],
          what: `merge ${other.id} + ${c.id}`,
        });
    }
  };
  useKeyTable(
    MEMBERS_KEYS,
    {
      move: memberCursor.handle,
      open: () => {
        const id = current()?.attemptIds[memberCursor.current()];
        if (id) actions.openAttempt(id);
      },
      split: withCluster((c) => {
        const id = c.attemptIds[memberCursor.current()];
        if (!id) return;
        if (c.attemptIds.length < 2)
          actions.notify("warn", "split must leave at least one attempt behind");
        else void wb.decide({ op: "split", attemptIds: [id] }, `split ${id} out of ${c.id}`);
        setMembers(false);
      }),
      back: () => setMembers(false),
    },
    { isActive: !!data && !prompt && members },
  );

  // Columns from the width: the name takes the room left (middle ellipsis keeps both ends of
  // look-alike names); the family column shows only while the name keeps 30 columns. The row
  // starts with the list's cursor and the merge mark (2 + 2 columns).
  const fixed = [
    { want: 3, min: 3 },
    { want: 6, min: 6 },
    { want: 6, min: 6 },
  ];
  const withFamily = width - 5 >= 30 + 3 + 6 + 6 + 24 + 4;
  const [nameW = 12, attW = 3, tasksW = 6, pointW = 6, familyW = 0] = layoutColumns(width - 5, [
    { want: 36, min: 12, flex: true },
    ...fixed,
    ...(withFamily ? [{ want: 24, min: 24 }] : []),
  ]);
  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  if (!mineRead) return <Text color={theme.muted}>reading the clusters…</Text>;
  if (rows.length === 0)
    return (
      <Text color={theme.muted}>
        Nothing mined yet. l labels the failed attempts in scope with the heuristic labeller, L with
        the LLM (needs OPENAI_API_KEY); both cluster them by mechanism.
      </Text>
    );
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {`    ${fitCell("cluster", nameW)} ${fitCell("att", attW, "right")} ${fitCell("tasks", tasksW, "right")} ${"point".padEnd(pointW)}${familyW ? " family" : ""}`}
      </Text>
      <VirtualList<Row>
        items={rows}
        selected={cursor.index}
        height={listHeight}
        keyOf={(c) => (c === REVIEW_ROW ? REVIEW_ROW : c.id)}
        renderRow={(c) =>
          c === REVIEW_ROW ? (
            <Text wrap="truncate-end" color={theme.warn}>
              {`  needs review (${review.length})`}
              <Text color={theme.muted}> in scope, no mechanism named yet</Text>
            </Text>
          ) : (
            <Text wrap="truncate-end">
              <Text color={mark === c.id ? theme.warn : undefined}>
                {mark === c.id ? "* " : "  "}
              </Text>
              {`${fitCell(c.name, nameW)} ${fitCell(String(c.attemptIds.length), attW, "right")} ${fitCell(String(c.taskIds.length), tasksW, "right")} ${fitCell(c.interventionPoint, pointW)}`}
              <Text color={theme.muted}>
                {familyW ? ` ${fitCell(c.family ?? "-", familyW)}` : ""}
              </Text>
            </Text>
          )
        }
      />
      {prompt ? (
        <TextField
          key={prompt.kind}
          label={
            prompt.kind === "rename"
              ? "new name:"
              : prompt.kind === "merge-name"
                ? "merged name:"
                : "exclude reason:"
          }
          value={prompt.value}
          selectInitial={prompt.kind !== "exclude"}
          active
          width={width}
          onChange={(v) => setPrompt({ ...prompt, value: v })}
          onSubmit={submit}
          onCancel={() => {
            if (prompt.kind === "merge-name") actions.notify("info", "merge cancelled");
            setPrompt(undefined);
          }}
        />
      ) : null}
      {onReviewRow && reviewOpen && !prompt ? (
        <ReviewList
          attemptIds={review}
          labels={labelsById}
          taskOf={(id) => data.byId.get(id)?.taskId}
          height={5}
          width={width}
          onBack={() => setReviewOpen(false)}
        />
      ) : onReviewRow && !history ? (
        <Box flexDirection="column">
          <Text wrap="truncate-end">
            <Text color={theme.warn}>needs review ({review.length})</Text>: failed attempts in scope
            whose evidence names no mechanism yet
          </Text>
          <Text wrap="truncate-end" color={theme.muted}>
            Enter lists them (task, kind, strongest suspect, first evidence); drafts come only from
            clusters, so review comes first
          </Text>
        </Box>
      ) : cluster && evidence && !prompt ? (
        <EvidenceRows
          cluster={cluster}
          height={5}
          width={width}
          onBack={() => setEvidence(false)}
        />
      ) : history ? (
        <DecisionHistory decisions={data.decisions} width={width} />
      ) : cluster && members ? (
        <Box flexDirection="column">
          <Text bold>members of {cluster.id}</Text>
          <VirtualList
            items={cluster.attemptIds}
            selected={memberSel}
            height={5}
            keyOf={(id) => id}
            renderRow={(id) => (
              <Text wrap="truncate-end">
                {id} <Text color={theme.muted}>{data.byId.get(id)?.taskId ?? ""}</Text>
              </Text>
            )}
          />
        </Box>
      ) : cluster ? (
        <Box flexDirection="column">
          <Text wrap="truncate-end">
            <Text color={theme.accent}>{cluster.id}</Text> {cluster.mechanism}
          </Text>
          <Text wrap="truncate-end" color={theme.muted}>
            tasks: {cluster.taskIds.join(", ")}
          </Text>
          <Text wrap="truncate-end" color={theme.muted}>
            {clusterStrength(cluster)}
          </Text>
          <Text wrap="truncate-end" color={theme.muted}>
            detectors: {cluster.detectors.map((d) => `${d.id}×${d.count}`).join(", ") || "none"}
          </Text>
          <Text wrap="truncate-end">
            evidence:{" "}
            {cluster.evidence[0]
              ? `#${cluster.evidence[0].eventIndex} ${cluster.evidence[0].excerpt}`
              : "-"}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}
