import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { saveCandidateText } from "../../../src/core/lifecycle/save-text.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const REF = join(REPO_ROOT, "candidates/reference/service-persistence.yaml");
let dir: string;
let text: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-save-text-"));
  // A screening copy of the reference candidate (the reference itself is frozen).
  text = (await readFile(REF, "utf8")).replace("status: frozen", "status: screening");
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("saveCandidateText", () => {
  it("writes a compiling text as is, keeping YAML comments, creating folders", async () => {
    const file = join(dir, "candidates/drafts/sp.yaml");
    const edited = text.replace("version: 1\n", "version: 1 # edited by hand\n");
    expect(edited).not.toBe(text);
    expect(await saveCandidateText(file, edited)).toEqual([]);
    const saved = await readFile(file, "utf8");
    expect(saved).toBe(edited);
    expect(saved).toContain("# yaml-language-server");
    expect(saved).toContain("version: 1 # edited by hand\n");
  });

  it("refuses a text that does not compile, with file:line errors, leaving the file as it was", async () => {
    const file = join(dir, "sp.yaml");
    await writeFile(file, text);
    const errors = await saveCandidateText(
      file,
      text.replace("(keep|leave|remain|stay)", "(keep|leave"),
    );
    expect(errors.length).toBe(1);
    expect(errors[0]!.format()).toMatch(/sp\.yaml:\d+: eligibility\.anyOf\.0/);
    expect(await readFile(file, "utf8")).toBe(text);
  });

  it("never writes over a frozen candidate", async () => {
    const file = join(dir, "frozen.yaml");
    const frozen = await readFile(REF, "utf8");
    await writeFile(file, frozen);
    const errors = await saveCandidateText(file, text);
    expect(errors.map((e) => e.format())).toEqual([
      `${file}: frozen candidates are immutable: revise instead`,
    ]);
    expect(await readFile(file, "utf8")).toBe(frozen);
  });
});
