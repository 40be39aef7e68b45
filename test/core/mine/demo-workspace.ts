import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadDecisions } from "../../../src/core/mine/decisions.js";
import { readLabelStore } from "../../../src/core/mine/label-cache.js";
import { mine } from "../../../src/core/mine/mine.js";
import { DemoManifest } from "../../../src/core/mine/validation.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadWorkspace, type Workspace } from "../../../src/core/workspace/load.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";

export const DEMO_DIR = resolve(REPO_ROOT, "traces/generated");

const created: string[] = [];

/** Removes every temp workspace this test file created (call from afterAll). */
export function removeTempWorkspaces(): void {
  for (const d of created.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A fresh temp workspace whose only source is the given folder (absolute), plus extra config. */
export function tempWorkspace(source: string, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-mine-"));
  created.push(dir);
  writeFileSync(
    join(dir, "fire.config.json"),
    JSON.stringify({ sources: [source], ...extra }, null, 2),
  );
  return dir;
}

export async function loadDemo(extra: Record<string, unknown> = {}): Promise<Workspace> {
  return loadWorkspace(tempWorkspace(`${DEMO_DIR}/`, extra));
}

export async function loadOpenclaw(): Promise<Workspace> {
  return loadWorkspace(tempWorkspace(`${fixture("harbor-openclaw")}/`));
}

export function demoManifest(): DemoManifest {
  return DemoManifest.parse(JSON.parse(readFileSync(join(DEMO_DIR, "manifest.json"), "utf8")));
}

/** The attempt a manifest entry (path relative to the corpus root) describes. */
export function attemptAt(attempts: readonly Attempt[], path: string): Attempt {
  const a = attempts.find((x) => x.source.path.replace(/\\/g, "/").endsWith(`/${path}`));
  if (!a) throw new Error(`no attempt for ${path}`);
  return a;
}

/** An attempt by its trial-name prefix (fixture ids end in a hash). */
export function attemptByPrefix(attempts: readonly Attempt[], prefix: string): Attempt {
  const a = attempts.find((x) => x.id.startsWith(prefix));
  if (!a) throw new Error(`no attempt ${prefix}…`);
  return a;
}

/** The clusters as `mine` itself gives them with the workspace's decisions (no cache). */
export async function direct(dir: string) {
  const ws = await openCurrentWorkspace(dir);
  return mine(ws.attempts, {
    labeler: "heuristic",
    config: ws.config,
    store: await readLabelStore(dir, "heuristic"),
    decisions: (await loadDecisions(dir)).decisions,
    reuseOnly: true,
  });
}
