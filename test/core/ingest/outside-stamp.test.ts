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
    const checkpoint = resolve(REPO_ROOT, "test/fixtures/checkpoint-run/code_search/checkpoint_2");
    return Promise.all(
      OUTSIDE_FORMATS.map(async (format) => {
        const path = format === "checkpoint-run" ? checkpoint : resolve(REPO_ROOT, "test/fixtures");
        expect(await outsideStampOf(format, path)).toBe(outsideStamp(format, path));
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
