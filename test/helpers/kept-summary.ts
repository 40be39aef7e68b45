import { readFileSync, rmSync } from "node:fs";
import { expect } from "vitest";
import { cachedClusters, workspaceHead } from "../../src/core/app/cached-reads.js";
import { clusters } from "../../src/core/app/mining.js";
import { currentSummary } from "../../src/core/mine/clusters-summary.js";
import { renderMine, renderMineSummary } from "../../src/core/mine/render.js";
import { indexFile } from "../../src/core/workspace/head.js";
import { openCurrentWorkspace } from "../../src/core/workspace/open.js";
import { workspacePaths } from "../../src/core/workspace/paths.js";
import { fireIn } from "./cli.js";

/**
 * Cluster decisions taken against the kept clusters summary, checked against the full path:
 * each command runs in two workspaces mined alike, one with its index head (the fast path)
 * and one without (the full path), and what they print and keep is compared.
 */

export const RECORDED = "recorded in mining/decisions.json (re-clustering keeps it)\n";

/** `fire …`; `out` is stdout, or the status and stderr when it failed. */
export const fire = async (...args: string[]) => {
  const r = await fireIn(args);
  return { ...r, out: r.status === 0 ? r.stdout : `${r.status} ${r.stderr}` };
};

export type Pair = { fast: string; full: string };

/** Two workspaces made by `make` and mined alike: one takes the fast path, one the full. */
export async function pair(make: () => string): Promise<Pair> {
  const fast = make();
  const full = make();
  for (const dir of [fast, full])
    expect((await fire("mine", "--labeler", "heuristic", "-w", dir)).status).toBe(0);
  return { fast, full };
}

/** The kept clusters summary as `fire clusters` would read it now (undefined: stale). */
export const summaryNow = async (dir: string) => cachedClusters((await workspaceHead(dir))!);

/** What a command printed in the two workspaces: with its head, and with it gone (full path). */
export async function both(w: Pair, ...args: string[]) {
  const fast = await fire(...args, "-w", w.fast);
  rmSync(`${indexFile(w.full)}.head`, { force: true });
  const full = await fire(...args, "-w", w.full);
  return { fast: same(fast.out, w.fast), full: same(full.out, w.full) };
}

/** Output with the workspace's own path and the decisions' times out of the way. */
const same = (out: string, dir: string) =>
  out.replaceAll(dir, "<ws>").replace(/"at": "[^"]+"/g, '"at": "T"');

export const decisionsOf = (dir: string) =>
  same(readFileSync(workspacePaths(dir).decisions, "utf8"), dir);

/** The summary kept in `dir` is the one computed again, and what `fire clusters` prints. */
export async function keptIsRecomputed(dir: string) {
  const kept = await summaryNow(dir);
  expect(kept).toBeDefined();
  const ws = await openCurrentWorkspace(dir);
  rmSync(workspacePaths(dir).clustersSummary);
  expect(await currentSummary(ws)).toEqual(kept);
  expect(renderMineSummary(kept!)).toBe(renderMine((await clusters({ ws }))!));
}
