import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { currentHead } from "../../../src/core/workspace/head.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const own = (...p: string[]) => join(REPO_ROOT, "test/fixtures", ...p);

/**
 * Importers that read files outside their unit (a SWE-bench report in another folder, an
 * OpenHands run's metadata beside an instance folder): a file that appears or changes there
 * makes the unit's stamp change, so the index, the read commands' fast path and the parse
 * cache all see it.
 */
let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-outside-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const EVAL = "traces/run/gpt-5-mini/eval_results";

describe("files read from outside a unit", () => {
  it("a SWE-bench report that appears after the first load is read, not served stale", async () => {
    await cp(own("mini-swe-agent-toolcall", "run"), join(ws, "traces", "run"), {
      recursive: true,
    });
    const report = join(ws, EVAL);
    await cp(report, join(ws, "later"), { recursive: true });
    await rm(report, { recursive: true });
    const outcome = async () =>
      (await openCurrentWorkspace(ws)).attempts.find((a) => a.taskId === "astropy__astropy-13033")
        ?.outcome;
    expect(await outcome()).toBe("unknown");
    expect(await currentHead(ws)).toBeDefined(); // nothing changed: the fast path answers

    // the harness grades the run later: its report lands in a folder of its own
    await cp(join(ws, "later"), report, { recursive: true });
    expect(await currentHead(ws)).toBeUndefined();
    expect(await outcome()).toBe("fail");
    expect(await currentHead(ws)).toBeDefined();

    // a rewritten report (here: the instance resolved after a re-run) is read again too
    const file = join(report, "openai__gpt-5-mini/astropy__astropy-13033/report.json");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace('"resolved": false', '"resolved": true'));
    expect(await currentHead(ws)).toBeUndefined();
    expect(await outcome()).toBe("pass");
  });

  it("an OpenHands instance folder re-reads the run's metadata.json beside it", async () => {
    await cp(own("openhands-swebench"), join(ws, "traces", "oh"), { recursive: true });
    const model = async () =>
      (await openCurrentWorkspace(ws)).attempts.find((a) => a.taskId === "django__django-11141")
        ?.model;
    expect(await model()).toBe("litellm_proxy/claude-3-5-sonnet-20241022");
    const meta = join(ws, "traces", "oh", "_run", "metadata.json");
    const text = await readFile(meta, "utf8");
    await writeFile(meta, text.replace("claude-3-5-sonnet-20241022", "another-model"));
    expect(await currentHead(ws)).toBeUndefined();
    expect(await model()).toBe("litellm_proxy/another-model");
  });
});
