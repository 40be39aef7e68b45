import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { demoCopiesPerTest, waitFor } from "./helpers.js";

const { workspace } = demoCopiesPerTest();
// util-linux `script` gives the built CLI a real pseudo-terminal (the workbench opens only in one)
const SCRIPT = "/usr/bin/script";

describe("leaving the workbench", () => {
  it("q clears the alternate screen before leaving it (tmux keeps its rows after a resize)", async () => {
    const fire = resolve(REPO_ROOT, "dist/cli/fire.cjs");
    // read once here (parse cache and index written), so the workbench opens warm. `.ci/run`
    // exports CI=true, which this child inherits: the workbench must draw in spite of it
    const dir = workspace();
    await loadWorkspace(dir);
    const cmd = `stty cols 100 rows 30; exec ${process.execPath} ${fire} --workspace ${dir}`;
    const child = spawn(SCRIPT, ["-qfec", cmd, "/dev/null"], {
      env: { ...process.env, NO_COLOR: "1", TERM: "xterm-256color" },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    const exited = new Promise<number | null>((res) => child.on("exit", res));
    await waitFor(
      () => out.includes(DEMO_ATTEMPTS),
      () => JSON.stringify(out.slice(-4000)),
      150_000,
    );
    child.stdin.write("q");
    expect(await exited).toBe(0);
    const leave = out.lastIndexOf("\u001B[?1049l");
    expect(leave).toBeGreaterThan(0);
    // the last thing drawn on the alternate screen is a cleared screen, not the last frame
    expect(out.slice(0, leave).endsWith("\u001B[H\u001B[2J")).toBe(true);
  });
});
