import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { OUTSIDE_FORMATS, outsideStampOf } from "../../../src/core/ingest/outside-stamp.js";
import { IMPORTERS, outsideStamp } from "../../../src/core/ingest/registry.js";
import { REPO_ROOT } from "../../helpers/paths.js";

describe("outside stamps without the registry", () => {
  it("covers every importer that reads outside its unit, and only those", () => {
    const reading = IMPORTERS.filter((i) => i.outsideStamp).map((i) => i.format);
    expect([...OUTSIDE_FORMATS].sort()).toEqual([...reading].sort());
  });

  it("gives the stamp the registry gives, for a real unit of each kind it answers lightly", () => {
    // a real checkpoint (the previous one's verdict is outside it) and a unit of each other format
    const real: Partial<Record<string, string>> = {
      "checkpoint-run": "test/fixtures/checkpoint-run/code_search/checkpoint_2",
      // a trajectory whose SWE-bench report sits in the run's eval_results folder
      "mini-swe-agent":
        "test/fixtures/mini-swe-agent-toolcall/run/gpt-5-mini/astropy__astropy-13033/astropy__astropy-13033.traj.json",
    };
    return Promise.all(
      OUTSIDE_FORMATS.map(async (format) => {
        const path = resolve(REPO_ROOT, real[format] ?? "test/fixtures");
        const stamp = await outsideStampOf(format, path);
        expect(stamp).toBe(outsideStamp(format, path));
        if (real[format]) expect(stamp).not.toBe("none");
      }),
    );
  });

  it("stamps the previous checkpoint's verdict, which a change there changes", async () => {
    const second = resolve(REPO_ROOT, "test/fixtures/checkpoint-run/code_search/checkpoint_2");
    const first = resolve(REPO_ROOT, "test/fixtures/checkpoint-run/code_search/checkpoint_1");
    expect(await outsideStampOf("checkpoint-run", second)).not.toBe("none");
    expect(await outsideStampOf("checkpoint-run", first)).toBe("none");
  });
});
