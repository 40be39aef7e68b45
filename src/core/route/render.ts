import type { RouteAudit } from "./audit.js";

/** The routing audit as plain text (the CLI prints it; core never prints). */
export function renderRouteAudit(a: RouteAudit): string {
  const out: string[] = [];
  out.push(`${a.tasks} task(s) × ${a.candidates.length} candidate(s)`);
  out.push("");
  for (const row of a.matrix) {
    if (row.routes.length === 0) continue;
    const cells = row.routes.map((r) => `${r.policy} (“${(r.matched ?? "").slice(0, 60)}”)`);
    out.push(`${row.taskId}: ${cells.join(", ")}`);
  }
  out.push("");
  out.push("candidates:");
  for (const c of a.candidates) out.push(`  ${c.policy}  ${c.family}  routes ${c.routed.length}`);
  out.push("");
  out.push(
    a.multiFamily.length === 0
      ? "tasks routed to more than one family: none"
      : `tasks routed to more than one family (${a.multiFamily.length}):`,
  );
  for (const m of a.multiFamily) out.push(`  ${m.taskId}: ${m.families.join(", ")}`);
  out.push(
    a.idle.length === 0
      ? "candidates routing nothing: none"
      : `candidates routing nothing: ${a.idle.join(", ")}`,
  );
  out.push(`silent tasks (${a.silent.length}): ${a.silent.join(", ")}`);
  return `${out.join("\n")}\n`;
}
