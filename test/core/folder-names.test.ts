import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";

const CORE = join(REPO_ROOT, "src/core");

/** Every folder under src/core, as a path relative to it. */
function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const path = join(dir, e.name);
      return [relative(CORE, path), ...folders(path)];
    });
}

describe("core folder names", () => {
  it("name one concept once: no two folders under src/core share a name", () => {
    const byName = new Map<string, string[]>();
    for (const f of folders(CORE)) {
      const name = f.split("/").at(-1) ?? f;
      byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    const twice = [...byName.values()].filter((paths) => paths.length > 1);
    expect(twice).toEqual([]);
  });
});
