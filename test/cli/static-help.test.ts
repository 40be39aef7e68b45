import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

// the bin's CommonJS helper, as built (the test runner does not transform .cts)
const { helpSources, staticAnswer } = createRequire(import.meta.url)(
  join(REPO_ROOT, "dist/cli/static-help.cjs"),
) as typeof import("../../src/cli/static-help.cjs");

describe("fire --help and --version without loading the commands", () => {
  it("the built bin prints the help and version commander gives", async () => {
    const [stored, live] = [runFire(["--help"]), await fireIn(["--help"])];
    expect(stored.status).toBe(0);
    expect(stored.stdout).toContain("Commands:");
    expect(stored.stdout).toBe(live.stdout);
    expect(runFire(["--version"]).stdout).toBe((await fireIn(["--version"])).stdout);
  });

  const dir = mkdtempSync(join(tmpdir(), "fire-static-help-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "commands"));
  writeFileSync(join(dir, "run.js"), "// program\n");
  writeFileSync(join(dir, "commands", "triage.js"), "// a command\n");
  const store = () =>
    writeFileSync(
      join(dir, "help.json"),
      JSON.stringify({
        version: "9.9.9",
        help: "Usage: stored\n",
        width: 80,
        sources: helpSources(dir),
      }),
    );

  it("answers only the top-level help and version, while their modules are unchanged", () => {
    store();
    expect(staticAnswer(["--help"], dir)).toBe("Usage: stored\n");
    expect(staticAnswer(["help"], dir)).toBe("Usage: stored\n");
    expect(staticAnswer(["-V"], dir)).toBe("9.9.9\n");
    expect(staticAnswer(["triage", "--help"], dir)).toBeUndefined();
    expect(staticAnswer([], dir)).toBeUndefined();
    expect(staticAnswer(["triage"], dir)).toBeUndefined();
  });

  it("leaves the answer to commander when a command changed or was added", () => {
    store();
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, "commands", "triage.js"), later, later);
    expect(staticAnswer(["--help"], dir)).toBeUndefined();
    store();
    writeFileSync(join(dir, "commands", "route.js"), "// a new command\n");
    expect(staticAnswer(["--version"], dir)).toBeUndefined();
    rmSync(join(dir, "help.json"));
    expect(staticAnswer(["--help"], dir)).toBeUndefined();
  });
});
