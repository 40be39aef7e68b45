import { cpSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { outsideFiles } from "../../../src/core/ingest/mini-swe-paths.js";
import { OUTSIDE_FORMATS, outsideStampOf } from "../../../src/core/ingest/outside-stamp.js";
import { IMPORTERS, outsideStamp } from "../../../src/core/ingest/registry.js";
import { REPO_ROOT } from "../../helpers/paths.js";

describe("outside stamps without the registry", () => {
  it("covers every importer that reads outside its unit, and only those", () => {
    const reading = IMPORTERS.filter((i) => i.outsideStamp).map((i) => i.format);
    expect([...OUTSIDE_FORMATS].sort()).toEqual([...reading].sort());
  });

  it("stamps the files a trajectory's reader reads outside it, and a change there changes it", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "fire-outside-"));
    try {
      cpSync(resolve(REPO_ROOT, "test/fixtures/mini-swe-agent-toolcall/run"), join(tmp, "run"), {
        recursive: true,
      });
      const traj = join(
        tmp,
        "run/gpt-5-mini/astropy__astropy-13033/astropy__astropy-13033.traj.json",
      );
      const report = join(
        tmp,
        "run/gpt-5-mini/eval_results/openai__gpt-5-mini/astropy__astropy-13033/report.json",
      );
      expect(outsideFiles(traj)).toEqual([report, join(dirname(report), "test_output.txt")]);
      const before = await outsideStampOf("mini-swe-agent", traj);
      expect(before).toBe(outsideStamp("mini-swe-agent", traj));
      const later = new Date(Date.now() + 60_000);
      utimesSync(report, later, later);
      expect(await outsideStampOf("mini-swe-agent", traj)).not.toBe(before);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("stamps the previous checkpoint's verdict, which a change there changes", async () => {
    const second = resolve(REPO_ROOT, "test/fixtures/checkpoint-run/code_search/checkpoint_2");
    const first = resolve(REPO_ROOT, "test/fixtures/checkpoint-run/code_search/checkpoint_1");
    expect(await outsideStampOf("checkpoint-run", second)).not.toBe("none");
    expect(await outsideStampOf("checkpoint-run", first)).toBe("none");
  });
});
