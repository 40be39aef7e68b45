import { Box } from "ink";
import { type ReactNode, useState } from "react";
import { eventCountOf, outcomeOf } from "../../core/app/workspace.js";
import type { TaskTriage } from "../../core/mine/triage.js";
import type { HandOutcome } from "../../core/workspace/hand-outcomes.js";
import { useAppActions } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import type { WorkspaceData } from "../data/workspace.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import { TRIAGE_HAND_KEYS } from "../keys/tables.js";
import { outcomeToken } from "../theme.js";
import { Text } from "./Text.js";
import { TextField } from "./TextField.js";

export interface TaskAttemptsProps {
  data: WorkspaceData;
  task: TaskTriage;
  selected: number;
  active: boolean;
  width: number;
}

/**
 * A task's attempts with their outcomes: recorded by the verifier, or given by hand (+ - =)
 * for attempts that have none, and tags (#), kept in mining/outcomes.json for triage.
 */
export function TaskAttempts({
  data,
  task,
  selected,
  active,
  width,
}: TaskAttemptsProps): ReactNode {
  const theme = useTheme();
  const actions = useAppActions();
  const wb = useWorkbench();
  const [tags, setTags] = useState<string | undefined>(undefined);
  const id = task.attemptIds[selected];
  const attempt = id ? data.byId.get(id) : undefined;
  const give = (outcome: HandOutcome | null, what: string) => {
    if (!id || !attempt) return false;
    if (attempt.outcome !== "unknown")
      actions.notify(
        "warn",
        `${id} has a verifier outcome (${attempt.outcome}); hand outcomes are for attempts without one`,
      );
    else void wb.mark(id, { outcome }, `${id}: ${what}`);
  };
  useKeyTable(
    TRIAGE_HAND_KEYS,
    {
      pass: () => give("pass", "pass by hand"),
      fail: () => give("fail", "fail by hand"),
      clear: () => give(null, "hand outcome cleared"),
      tags: () => {
        if (!id) return false;
        setTags((data.hand.entries.get(id)?.tags ?? []).join(", "));
      },
    },
    { isActive: active && tags === undefined },
  );
  return (
    <Box flexDirection="column" width={width}>
      {task.attemptIds.map((aid, i) => {
        const a = data.byId.get(aid);
        const mark = data.hand.entries.get(aid);
        const outcome = a ? outcomeOf(a, data.triageInputs) : "unknown";
        const byHand = a?.outcome === "unknown" && outcome !== "unknown";
        return (
          <Text key={aid} wrap="truncate-end">
            <Text color={i === selected ? theme.accent : undefined}>
              {i === selected ? "▸ " : "  "}
            </Text>
            <Text color={outcomeToken(theme, outcome)}>
              {`${outcome}${byHand ? "✎" : ""}`.padEnd(8)}
            </Text>
            {aid}{" "}
            <Text color={theme.muted}>
              {a?.agent ?? ""} {a?.model ?? ""} {a ? eventCountOf(data.ws, a) : 0} events
              {mark?.tags.length ? ` ${mark.tags.map((t) => `#${t}`).join(" ")}` : ""}
            </Text>
          </Text>
        );
      })}
      {tags !== undefined && id ? (
        <TextField
          label={`tags of ${id} (comma-separated, Enter saves, Esc cancels)`}
          value={tags}
          onChange={setTags}
          onSubmit={(v) => {
            setTags(undefined);
            void wb.mark(id, { tags: v.split(",") }, `${id}: tags`);
          }}
          onCancel={() => setTags(undefined)}
          active={active}
          width={width}
        />
      ) : null}
    </Box>
  );
}
