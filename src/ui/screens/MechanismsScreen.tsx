import { Box, Text } from "ink";
import { type ReactNode, useEffect, useRef, useState } from "react";
import type { Cluster } from "../../core/mine/cluster.js";
import { TextField } from "../components/TextField.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeypress } from "../hooks/useKeypress.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import type { ScreenProps } from "./types.js";

type Prompt = { kind: "rename" | "exclude" | "merge-name"; value: string } | undefined;

/** Screen 3: clusters; rename / merge / split / exclude; labelling; draft a candidate. */
export function MechanismsScreen({ width, height }: ScreenProps): ReactNode {
  const { mine, data, clusterId } = useAppState();
  const actions = useAppActions();
  const wb = useWorkbench();
  const theme = useTheme();
  const clusters = mine?.clusters ?? [];
  const listHeight = Math.max(3, height - 8);
  const cursor = useListCursor(clusters.length, listHeight);
  const [members, setMembers] = useState(false);
  const [memberSel, setMemberSel] = useState(0);
  const [mark, setMarkState] = useState<string | undefined>();
  const markRef = useRef<string | undefined>(undefined);
  const setMark = (id: string | undefined) => {
    markRef.current = id;
    setMarkState(id);
  };
  const [prompt, setPrompt] = useState<Prompt>();
  const cluster: Cluster | undefined = clusters[cursor.index];
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow a search jump only
  useEffect(() => {
    const i = clusters.findIndex((c) => c.id === clusterId);
    if (i >= 0) cursor.setIndex(i);
  }, [clusterId]);

  const submit = (value: string) => {
    const p = prompt;
    setPrompt(undefined);
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

  useKeypress((input, key) => {
    if (prompt || !data) return false;
    if (input === "l" || input === "L") {
      void wb.mine(input === "L" ? "llm" : "heuristic");
      return true;
    }
    // The cursor's latest row (keys can arrive before the next frame).
    const cluster = clusters[cursor.current()];
    const mark = markRef.current;
    if (!cluster) return false;
    if (members) {
      const ids = cluster.attemptIds;
      if (key.escape) setMembers(false);
      else if (key.return && ids[memberSel]) actions.openAttempt(ids[memberSel]!);
      else if (key.downArrow || input === "j") setMemberSel((s) => Math.min(ids.length - 1, s + 1));
      else if (key.upArrow || input === "k") setMemberSel((s) => Math.max(0, s - 1));
      else if (input === "s" && ids[memberSel]) {
        if (ids.length < 2) actions.notify("warn", "split must leave at least one attempt behind");
        else
          void wb.decide(
            { op: "split", attemptIds: [ids[memberSel]!] },
            `split ${ids[memberSel]} out of ${cluster.id}`,
          );
        setMembers(false);
      } else return false;
      return true;
    }
    if (key.return) {
      setMemberSel(0);
      setMembers(true);
    } else if (input === "r") setPrompt({ kind: "rename", value: cluster.name });
    else if (input === "e") setPrompt({ kind: "exclude", value: "" });
    else if (input === "d")
      void wb.draft(cluster).then((file) => {
        if (file) actions.openCandidate(file);
      });
    else if (input === "m") {
      if (!mark) {
        setMark(cluster.id);
        actions.notify(
          "info",
          `marked ${cluster.id}: move to another cluster and press m to merge`,
        );
      } else if (mark === cluster.id) setMark(undefined);
      else {
        const other = clusters.find((c) => c.id === mark);
        setMark(undefined);
        if (other)
          void wb.decide(
            { op: "merge", groups: [other.attemptIds, cluster.attemptIds] },
            `merge ${other.id} + ${cluster.id}`,
          );
      }
    } else return cursor.handle(input, key);
    return true;
  });

  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  if (clusters.length === 0)
    return (
      <Text color={theme.muted}>
        Nothing mined yet. l labels the failed attempts in scope with the heuristic labeller, L with
        the LLM (needs OPENAI_API_KEY); both cluster them by mechanism.
      </Text>
    );
  return (
    <Box flexDirection="column" width={width}>
      <Text
        bold
      >{`${"   cluster".padEnd(40)}${"att".padStart(4)}${"tasks".padStart(6)}  point  family`}</Text>
      <VirtualList
        items={clusters}
        selected={cursor.index}
        height={listHeight}
        keyOf={(c) => c.id}
        renderRow={(c) => (
          <Text wrap="truncate-end">
            <Text color={mark === c.id ? theme.warn : undefined}>
              {mark === c.id ? "* " : "  "}
            </Text>
            {(c.named ? c.name : c.name).slice(0, 36).padEnd(37)}
            {String(c.attemptIds.length).padStart(4)}
            {String(c.taskIds.length).padStart(6)} {c.interventionPoint.padEnd(6)}{" "}
            <Text color={theme.muted}>{c.family ?? "-"}</Text>
          </Text>
        )}
      />
      {prompt ? (
        <TextField
          label={prompt.kind === "rename" ? "new name:" : "exclude reason:"}
          value={prompt.value}
          active
          width={width}
          onChange={(v) => setPrompt({ ...prompt, value: v })}
          onSubmit={submit}
          onCancel={() => setPrompt(undefined)}
        />
      ) : null}
      {cluster && members ? (
        <Box flexDirection="column">
          <Text bold>members of {cluster.id} — Enter opens, s splits out, Esc back</Text>
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
            detectors: {cluster.detectors.map((d) => `${d.id}×${d.count}`).join(", ") || "none"}
          </Text>
          <Text wrap="truncate-end">
            evidence:{" "}
            {cluster.evidence[0]
              ? `#${cluster.evidence[0].eventIndex} ${cluster.evidence[0].excerpt}`
              : "-"}
          </Text>
          <Text color={theme.muted} wrap="truncate-end">
            l/L label · r rename · m merge · Enter members (s split) · e exclude · d draft
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}
