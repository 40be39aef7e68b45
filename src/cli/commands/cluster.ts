import type { Command } from "commander";
import { clusterNamed, clustersSummary, decide } from "../../core/app/clusters.js";
import { renderCluster } from "../../core/app/present-mine.js";
import { NotFoundError, UsageError } from "../../core/errors.js";
import type { Cluster } from "../../core/mine/cluster.js";
import type { Decision } from "../../core/mine/decisions.js";
import type { Workspace } from "../../core/workspace/load.js";
import { print } from "../util/out.js";
import { openCurrent, printJson, withWorkspace } from "../util/workspace.js";

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
  const summary = await clustersSummary({ ws });
  if (!summary) throw new NotFoundError("nothing mined yet: run `fire mine` first");
  return { ws, clusters: summary.clusters };
}

const find = (clusters: Cluster[], ref: string): Cluster => clusterNamed({ clusters }, ref);

/** Records the decision; `--json` prints `{ok, message, decision}` instead of the text. */
async function record(ws: Workspace, d: Decision, what: string, json?: boolean): Promise<void> {
  const decision = await decide({ ws }, d);
  if (json) printJson({ ok: true, message: what, decision });
  else print(`${what}\nrecorded in mining/decisions.json (re-clustering keeps it)\n`);
}

const JSON_HELP = "print the recorded decision as JSON";

/** `fire cluster rename|merge|split|exclude`: user decisions, persisted in the workspace. */
export function register(program: Command): void {
  const cluster = program
    .command("cluster")
    .description("change clusters: rename, merge, split, exclude (kept across re-clustering)");
  withWorkspace(
    cluster
      .command("rename <cluster> <name>")
      .description("rename a cluster")
      .option("--json", JSON_HELP),
  ).action(async (ref: string, name: string, opts: Opts) => {
    const { ws, clusters } = await clustersOnly(opts);
    const c = find(clusters, ref);
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
    const { ws, clusters } = await clustersOnly(opts);
    const cs = [...new Set(refs.map((r) => find(clusters, r)))];
    if (cs.length < 2) throw new UsageError("merge needs two different clusters");
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
    const { ws, clusters, known } = await clustersOf(opts);
    const c = known.has(target) ? undefined : find(clusters, target);
    const ids = c ? c.attemptIds : [target];
    await record(
      ws,
      { op: "exclude", attemptIds: ids, reason: opts.reason },
      `excluded ${c ? `cluster ${c.id}` : target}: ${opts.reason}`,
      opts.json,
    );
    if (c && !opts.json) print(`${renderCluster(c)}\n`);
  });
}
