/** ATIF shape checks shared by the generator tests. Returns problems as text (empty: fine). */
export function atifProblems(t: unknown): string[] {
  const out: string[] = [];
  const traj = t as {
    schema_version?: unknown;
    session_id?: unknown;
    agent?: { name?: unknown; model_name?: unknown };
    steps?: unknown;
  };
  if (traj.schema_version !== "ATIF-v1.7")
    out.push(`schema_version ${String(traj.schema_version)}`);
  if (typeof traj.session_id !== "string") out.push("session_id missing");
  if (typeof traj.agent?.name !== "string") out.push("agent.name missing");
  if (!Array.isArray(traj.steps) || traj.steps.length === 0) return [...out, "no steps"];
  traj.steps.forEach((raw, i) => {
    const s = raw as {
      step_id?: unknown;
      source?: unknown;
      message?: unknown;
      tool_calls?: { tool_call_id?: unknown; function_name?: unknown; arguments?: unknown }[];
      observation?: { results?: { source_call_id?: unknown; content?: unknown }[] };
    };
    if (s.step_id !== i + 1) out.push(`step ${i}: step_id ${String(s.step_id)}`);
    if (!["user", "agent", "system"].includes(String(s.source))) out.push(`step ${i}: source`);
    if (typeof s.message !== "string") out.push(`step ${i}: message`);
    const ids = (s.tool_calls ?? []).map((c) => c.tool_call_id);
    const answered = (s.observation?.results ?? []).map((r) => r.source_call_id);
    for (const id of ids)
      if (!answered.includes(id)) out.push(`step ${i}: call ${String(id)} unanswered`);
    for (const id of answered)
      if (!ids.includes(id)) out.push(`step ${i}: result for unknown ${String(id)}`);
    for (const c of s.tool_calls ?? []) {
      if (typeof c.function_name !== "string" || typeof c.arguments !== "object")
        out.push(`step ${i}: call shape`);
    }
  });
  if ((traj.steps[0] as { source?: unknown }).source !== "user")
    out.push("first step is not the user prompt");
  return out;
}

/** The shell string of an ATIF tool call, whichever harness idiom it uses. */
export function atifCommand(args: Record<string, unknown>): string {
  const v = args.command ?? args.cmd ?? args.keystrokes;
  return typeof v === "string" ? v.replace(/\n$/, "") : "";
}
