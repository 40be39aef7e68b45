import type { Command } from "commander";
import {
  clusterNamed,
  describeDecision,
  excludeInKeptSummary,
  mergeInKeptSummary,
  renameInKeptSummary,
  undoInKeptSummary,
} from "../../core/app/kept-decisions.js";
import { NotFoundError, UsageError } from "../../core/errors.js";
import type { Cluster } from "../../core/mine/cluster.js";
import type { Decision } from "../../core/mine/decisions.js";
import type { WorkspaceHead } from "../../core/workspace/head.js";
import type { Workspace } from "../../core/workspace/load.js";
import { print } from "../util/out.js";
import {
  openCurrent,
  openHead,
  printJson,
  withWorkspace,
  workspaceDir,
} from "../util/workspace.js";

type Opts = { workspace?: string; json?: boolean };

async function clustersOf(
  opts: Opts,
): Promise<{ ws: Workspace; clusters: Cluster[]; known: Set<string> }> {
  const ws = await openCurrent(opts);
  const { minedClusters } = await import("../../core/app/mining.js");
  const r = await minedClusters({ ws });
  return { ws, clusters: r.clusters, known: new Set(r.labels.map((l) => l.attemptId)) };
}

/**
 * The current clusters alone (rename, merge: no labels needed), from the clusters summary:
 * the same clusters, without reading the whole mining result or loading the mining code.
 */
async function clustersOnly(opts: Opts): Promise<{ ws: Workspace; clusters: Cluster[] }> {
  const ws = await openCurrent(opts);
  const { clustersSummary } = await import("../../core/app/clusters.js");
  const summary = await clustersSummary({ ws });
  if (!summary) throw new NotFoundError("nothing mined yet: run `fire mine` first");
  return { ws, clusters: summary.clusters };
}

const find = (clusters: Cluster[], ref: string): Cluster => clusterNamed({ clusters }, ref);

/**
 * A decision made against the clusters summary kept for the workspace as it is now
 * (core/app/kept-decisions.ts); undefined when there is none or it cannot follow. Tried again
 * after the full path has computed (and kept) the summary: a decision recorded past it would
 * leave the summary one decision behind, and every later decision would compute it again
 * (~3 s each at 100,000 attempts) and leave it behind once more.
 */
async function againstKept<T>(
  opts: Opts,
  decide: (head: WorkspaceHead) => Promise<T | undefined>,
): Promise<T | undefined> {
  const head = await openHead(opts);
  return head ? decide(head) : undefined;
}

/** What a recorded decision prints; `--json`: `{ok, message, decision}`. */
function recorded(decision: Decision, what: string, json?: boolean): void {
  if (json) printJson({ ok: true, message: what, decision });
  else print(`${what}\nrecorded in mining/decisions.json (re-clustering keeps it)\n`);
}

/** Records the decision and prints it (`recorded`). */
async function record(ws: Workspace, d: Decision, what: string, json?: boolean): Promise<void> {
  const { decide } = await import("../../core/app/clusters.js");
  recorded(await decide({ ws }, d), what, json);
}

/** What an exclude of cluster `c` prints: `recorded`, then the cluster (not with --json). */
async function excluded(decision: Decision, c: Cluster, opts: Opts & { reason: string }) {
  recorded(decision, `excluded cluster ${c.id}: ${opts.reason}`, opts.json);
  if (!opts.json) print(`${(await import("../../core/app/cached-reads.js")).renderCluster(c)}\n`);
}

const JSON_HELP = "print the recorded decision as JSON";

/** `fire cluster rename|merge|split|exclude|undo`: user decisions, persisted in the workspace. */
export function register(program: Command): void {
  const cluster = program
    .command("cluster")
    .description(
      "change clusters: rename, merge, split, exclude, undo (kept across re-clustering)",
    );
  withWorkspace(
    cluster
      .command("rename <cluster> <name>")
      .description("rename a cluster")
      .option("--json", JSON_HELP),
  ).action(async (ref: string, name: string, opts: Opts) => {
    // against the clusters summary kept for the workspace as it is now: the decision is
    // appended and the summary follows (nothing opened, nothing re-clustered); else the
    // workspace is opened and the summary computed first
    const rename = (head: WorkspaceHead) => renameInKeptSummary(head, ref, name);
    const kept = await againstKept(opts, rename);
    if (kept) {
      recorded(kept.decision, `renamed ${kept.cluster.id} to "${name}"`, opts.json);
      return;
    }
    const { ws, clusters } = await clustersOnly(opts);
    const c = find(clusters, ref);
    const again = await againstKept(opts, rename);
    if (again) {
      recorded(again.decision, `renamed ${again.cluster.id} to "${name}"`, opts.json);
      return;
    }
    await record(
      ws,
      { op: "rename", members: c.attemptIds, name },
      `renamed ${c.id} to "${name}"`,
      opts.json,
    );
  });
  withWorkspace(
    cluster
      .command("merge <clusters...>")
      .description("merge two or more clusters")
      .option("--name <name>", "name of the merged cluster")
      .option("--json", JSON_HELP),
  ).action(async (refs: string[], opts: Opts & { name?: string }) => {
    if (refs.length < 2) throw new UsageError("merge needs at least two clusters");
    // against the kept clusters summary as rename does (else the full path)
    const merge = (head: WorkspaceHead) => mergeInKeptSummary(head, refs, opts.name || undefined);
    const merged = (kept: { clusters: Cluster[]; decision: Decision }) =>
      recorded(kept.decision, `merged ${kept.clusters.map((c) => c.id).join(" + ")}`, opts.json);
    const kept = await againstKept(opts, merge);
    if (kept) return merged(kept);
    const { ws, clusters } = await clustersOnly(opts);
    const cs = [...new Set(refs.map((r) => find(clusters, r)))];
    if (cs.length < 2) throw new UsageError("merge needs two different clusters");
    const again = await againstKept(opts, merge);
    if (again) return merged(again);
    await record(
      ws,
      {
        op: "merge",
        groups: cs.map((c) => c.attemptIds),
        ...(opts.name ? { name: opts.name } : {}),
      },
      `merged ${cs.map((c) => c.id).join(" + ")}`,
      opts.json,
    );
  });
  withWorkspace(
    cluster
      .command("split <cluster> <attemptIds...>")
      .description("move attempts out of a cluster into a new one")
      .option("--name <name>", "name of the new cluster")
      .option("--json", JSON_HELP),
  ).action(async (ref: string, ids: string[], opts: Opts & { name?: string }) => {
    const { ws, clusters } = await clustersOf(opts);
    const c = find(clusters, ref);
    const outside = ids.filter((id) => !c.attemptIds.includes(id));
    if (outside.length) throw new UsageError(`not in cluster ${c.id}: ${outside.join(", ")}`);
    if (ids.length === c.attemptIds.length)
      throw new UsageError("split must leave at least one attempt behind");
    await record(
      ws,
      { op: "split", attemptIds: ids, ...(opts.name ? { name: opts.name } : {}) },
      `split ${ids.length} attempt(s) out of ${c.id}`,
      opts.json,
    );
  });
  withWorkspace(
    cluster
      .command("exclude <target>")
      .description("exclude a cluster (or one attempt id) from mining, with a reason")
      .requiredOption("--reason <text>", "why it is out of scope")
      .option("--json", JSON_HELP),
  ).action(async (target: string, opts: Opts & { reason: string }) => {
    // a cluster, against the kept clusters summary as rename does (else the full path)
    const exclude = (head: WorkspaceHead) => excludeInKeptSummary(head, target, opts.reason);
    const kept = await againstKept(opts, exclude);
    if (kept) return excluded(kept.decision, kept.cluster, opts);
    const { ws, clusters, known } = await clustersOf(opts);
    const c = known.has(target) ? undefined : find(clusters, target);
    if (c) {
      // a cluster: against the summary computed now, when it can follow
      const { clustersSummary } = await import("../../core/app/clusters.js");
      await clustersSummary({ ws });
      const again = await againstKept(opts, exclude);
      if (again) return excluded(again.decision, again.cluster, opts);
    }
    const ids = c ? c.attemptIds : [target];
    const { decide } = await import("../../core/app/clusters.js");
    const decision = await decide({ ws }, { op: "exclude", attemptIds: ids, reason: opts.reason });
    if (c) await excluded(decision, c, opts);
    else recorded(decision, `excluded ${target}: ${opts.reason}`, opts.json);
  });
  withWorkspace(
    cluster
      .command("undo")
      .description("undo the newest cluster decision")
      .option("--json", "print the decision undone as JSON"),
  ).action(async (opts: Opts) => {
    // from a summary set aside when that decision was made (else the full path: the file
    // alone changes, and the next read computes the clusters again)
    const head = await openHead(opts);
    const kept = head && (await undoInKeptSummary(head));
    const undone =
      kept?.undone ??
      (await (
        await import("../../core/app/clusters.js")
      ).undoNewest({
        ws: { dir: workspaceDir(opts) },
      }));
    const message = undone ? `undid: ${describeDecision(undone)}` : "no cluster decision to undo";
    if (opts.json) printJson({ ok: true, message, undone: undone ?? null });
    else print(`${message}\n`);
  });
}
