import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cluster } from "../../../src/core/mine/cluster.js";
import type { MineResult } from "../../../src/core/mine/mine.js";
import { runMining } from "../../../src/core/mine/run-mining.js";
import { loadWorkspace, type Workspace } from "../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** A writable copy of the generated demo workspace (traces/generated), mined heuristically. */
export interface Demo {
  dir: string;
  ws: Workspace;
  mined: MineResult;
  cluster(family: string): Cluster;
  cleanup(): Promise<void>;
}

export async function minedDemo(): Promise<Demo> {
  const dir = await mkdtemp(join(tmpdir(), "fire-demo-"));
  await cp(join(REPO_ROOT, "traces", "generated"), join(dir, "traces", "generated"), {
    recursive: true,
  });
  const ws = await loadWorkspace(dir);
  const mined = await runMining(ws, { labeler: "heuristic" });
  return {
    dir,
    ws,
    mined,
    cluster(family) {
      const c = mined.clusters.find((x) => x.family === family);
      if (!c) throw new Error(`no ${family} cluster in the demo`);
      return c;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
