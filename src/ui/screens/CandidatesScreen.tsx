import { basename, relative } from "node:path";
import { Box } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { freeze, promote, retire, revise } from "../../core/app/index.js";
import { CandidateEditor } from "../components/CandidateEditor.js";
import { Pager } from "../components/Pager.js";
import { RefineView } from "../components/RefineView.js";
import { Text } from "../components/Text.js";
import { TextField } from "../components/TextField.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { errorLine } from "../contexts/errors.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { type CandidateEntry, statusOf } from "../data/candidates.js";
import { useCandidateText } from "../hooks/useCandidateText.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useMarks } from "../hooks/useMarks.js";
import { useRefine } from "../hooks/useRefine.js";
import { useSticky } from "../hooks/useSticky.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import { CANDIDATES_KEYS } from "../keys/tables.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell } from "../text/wrap.js";
import type { ScreenProps } from "./types.js";

const ORDER = ["draft", "screening", "frozen", "retired", "invalid"];
type PromptKind = "promote" | "retire" | "revise" | "freeze";
const PROMPT_LABEL: Record<PromptKind, string> = {
  promote: "promote note:",
  retire: "retire reason:",
  revise: "revise note:",
  freeze: "portfolio name:",
};

/** Screen 4: candidates by status with lineage; field editor with live preview; lifecycle. */
export function CandidatesScreen({ width, height }: ScreenProps): ReactNode {
  const { data, candidateFile } = useAppState();
  const actions = useAppActions();
  const wb = useWorkbench();
  const theme = useTheme();
  const entries = useMemo(
    () =>
      [...(data?.candidates ?? [])].sort(
        (a, b) =>
          ORDER.indexOf(statusOf(a)) - ORDER.indexOf(statusOf(b)) || (a.rel < b.rel ? -1 : 1),
      ),
    [data],
  );
  const previewScreen = useMemo(
    () => ({
      pool: (data?.candidates ?? []).flatMap((c) => (c.policy ? [c.policy] : [])),
      seed: data?.ws.config.screen.seed ?? 1,
    }),
    [data],
  );
  const listHeight = Math.max(3, height - 6);
  const cursor = useListCursor(entries.length, listHeight, "candidates.list");
  // The file open in the editor; kept across screens (a count opened from the preview, Esc back).
  const [editing, setEditing] = useSticky<string | undefined>("candidates.editing", undefined);
  const [prompt, setPrompt] = useState<{ kind: PromptKind; value: string } | undefined>();
  const entry: CandidateEntry | undefined = entries[cursor.index];
  const files = useMemo(() => new Set(entries.map((e) => e.file)), [entries]);
  const marks = useMarks("candidates.marks", files);
  const edited = editing ? entries.find((e) => e.file === editing) : undefined;
  const texts = useCandidateText((file) => setEditing(file));
  const refining = useRefine();
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow a search/draft jump only
  useEffect(() => {
    const i = entries.findIndex((e) => e.file === candidateFile);
    if (i >= 0) cursor.setIndex(i);
  }, [candidateFile]);

  const lifecycle = async (kind: PromptKind, value: string) => {
    if (!data || !entry) return;
    const ws = data.ws;
    const many = kind === "freeze" && marks.current().length > 0;
    const label = many
      ? `freeze ${marks.current().length} marked`
      : `${kind} ${entry.policy?.key ?? entry.rel}`;
    await actions.run(
      label,
      async () => {
        if (kind === "promote") await promote(data, entry.file, value);
        else if (kind === "retire") await retire(data, entry.file, value);
        else if (kind === "revise")
          return relative(ws.dir, (await revise(data, entry.file, value)).file);
        else {
          // the marked candidates in one portfolio (the same use case as `fire freeze`)
          const targets = marks.current().length ? marks.current() : [entry.file];
          const r = await freeze(data, targets, { name: value });
          const who = (x: { policy: string }) => (targets.length > 1 ? ` (${x.policy})` : "");
          if (!r.ok)
            throw new Error(
              `refused: ${r.refused.map((x) => `${x.missing.join("; ")}${who(x)}`).join(" | ")}`,
            );
          marks.clear();
          const n = r.manifest.policies.length;
          return `portfolios/${value} (${n > 1 ? `${n} policies, ` : ""}manifest ${r.manifest.manifestHash.slice(0, 12)})`;
        }
        return undefined;
      },
      (out) => `${label}: done${out ? ` → ${out}` : ""}`,
    );
    wb.reloadCandidates();
  };

  const withEntry = (f: (e: CandidateEntry) => void) => () => {
    const e = entries[cursor.current()];
    if (!e) return false;
    f(e);
  };
  useKeyTable(
    CANDIDATES_KEYS,
    {
      move: cursor.handle,
      edit: withEntry((e) => setEditing(e.file)),
      promote: withEntry(() => setPrompt({ kind: "promote", value: "" })),
      retire: withEntry(() => setPrompt({ kind: "retire", value: "" })),
      revise: withEntry(() => setPrompt({ kind: "revise", value: "" })),
      mark: withEntry((e) => marks.toggle(e.file)),
      freeze: withEntry((e) =>
        setPrompt({ kind: "freeze", value: marks.current().length ? "" : (e.policy?.id ?? "") }),
      ),
      yaml: withEntry(texts.read),
      external: withEntry(texts.edit),
      refine: () => {
        const e = entries[cursor.current()];
        if (!e) return false;
        if (!e.policy) {
          actions.notify("warn", `${e.rel} does not compile: fix it before refining`);
          return;
        }
        return refining.start(e.file, e.policy.key);
      },
    },
    {
      isActive:
        !!data && !data.candidatesPending && !edited && !prompt && !texts.reading && !refining.open,
    },
  );
  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  // not an empty list while the files are still read (the first frame comes before them)
  if (data.candidatesPending) return <Text color={theme.muted}>reading the candidate files…</Text>;
  if (refining.open)
    return (
      <RefineView
        result={refining.open.result}
        width={width}
        height={height}
        onAccept={refining.accept}
        onBack={refining.close}
      />
    );
  const reading = texts.reading;
  if (reading)
    return (
      <Pager
        title={`${reading.rel} · ${statusOf(reading)}`}
        text={reading.text}
        width={width}
        height={height}
        editName={basename(reading.file)}
        onClose={texts.closeReading}
        {...(statusOf(reading) === "frozen"
          ? {}
          : { onEdited: (t: string) => texts.edited(reading, t) })}
      />
    );
  if (edited)
    return (
      <CandidateEditor
        key={edited.text}
        file={edited.file}
        text={edited.text}
        {...(texts.handoff?.file === edited.file ? { draft: texts.handoff.text } : {})}
        readOnly={statusOf(edited) === "frozen"}
        attempts={data.ws.attempts}
        screen={previewScreen}
        width={width}
        height={height}
        onClose={() => {
          texts.clearHandoff();
          setEditing(undefined);
        }}
        onSave={(text) => {
          texts.clearHandoff();
          return texts.save(edited, text);
        }}
      />
    );
  const c = entry?.policy?.candidate;
  // columns from the width: an id too long for its column keeps both ends (its @version)
  const nameOf = (e: CandidateEntry) => e.policy?.key ?? e.rel;
  const longest = entries.reduce((n, e) => Math.max(n, nameOf(e).length), 9);
  const [statusW = 10, nameW = 12] = layoutColumns(width - 4, [
    { want: 10, min: 9 },
    { want: longest, min: 12 },
    { want: 24, min: 8, flex: true, drop: 1 },
  ]);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {`    ${"status".padEnd(statusW)} ${"candidate".padEnd(nameW)} family / lineage`}
      </Text>
      <VirtualList
        items={entries}
        selected={cursor.index}
        height={listHeight}
        keyOf={(e) => e.file}
        empty="no candidates: draft one from a cluster (3, then d)"
        renderRow={(e) => {
          const p = e.policy?.candidate;
          const s = statusOf(e);
          return (
            <Text wrap="truncate-end">
              <Text color={theme.accent}>{marks.has(e.file) ? "● " : "  "}</Text>
              <Text
                color={
                  s === "frozen"
                    ? theme.good
                    : s === "retired" || s === "invalid"
                      ? theme.bad
                      : theme.warn
                }
              >
                {fitCell(s, statusW)}
              </Text>
              {` ${fitCell(nameOf(e), nameW)} `}
              <Text color={theme.muted}>
                {p
                  ? `${p.family} · ${p.lineage.clusters.length}c/${p.lineage.attempts.length}a`
                  : ""}
                {p?.lineage.supersedes ? ` ← ${p.lineage.supersedes}` : ""}
              </Text>
            </Text>
          );
        }}
      />
      {prompt ? (
        <TextField
          label={
            prompt.kind === "freeze" && marks.list.length
              ? `portfolio name (${marks.list.length} marked):`
              : PROMPT_LABEL[prompt.kind]
          }
          value={prompt.value}
          active
          width={width}
          onChange={(v) => setPrompt({ ...prompt, value: v })}
          onSubmit={(v) => {
            setPrompt(undefined);
            if (v.trim() || prompt.kind === "promote") void lifecycle(prompt.kind, v.trim());
          }}
          onCancel={() => setPrompt(undefined)}
        />
      ) : null}
      {entry ? (
        <Box flexDirection="column">
          <Text wrap="truncate-end">{c?.title ?? entry.errors.map(errorLine).join("; ")}</Text>
          <Text color={theme.muted} wrap="truncate-end">
            {entry.rel} · last: {c?.history.at(-1)?.note ?? "no history"}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}
