import type { Command } from "commander";
import { renderMine } from "../../core/mine/render.js";
import { currentClusters } from "../../core/mine/session.js";
import { openWorkspace, printJson, withWorkspace } from "../util/workspace.js";
import { mineJson } from "./mine.js";

/** `fire clusters`: the current mechanism clusters (cached labels + your decisions). */
export function registerClusters(program: Command): void {
  withWorkspace(
    program
      .command("clusters")
      .description("show mechanism clusters from the last `fire mine` with your decisions applied")
      .option("--json", "print clusters as JSON"),
  ).action(async (opts: { workspace?: string; json?: boolean }) => {
    const ws = await openWorkspace(opts);
    const r = await currentClusters(ws);
    if (!r) {
      process.stderr.write("fire: nothing mined yet: run `fire mine` first\n");
      process.exitCode = 1;
      return;
    }
    if (opts.json) printJson(mineJson(r));
    else process.stdout.write(renderMine(r));
  });
}
