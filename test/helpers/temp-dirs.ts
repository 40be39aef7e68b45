import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * Temporary folders for one test file, removed after its tests: `fresh(prefix)` an empty one,
 * `copyOf(src, prefix)` a copy of a fixture to change.
 */
export function tempDirs(): {
  fresh: (prefix: string) => string;
  copyOf: (src: string, prefix: string) => string;
} {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  const fresh = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
  return {
    fresh,
    copyOf: (src, prefix) => {
      const d = fresh(prefix);
      cpSync(src, d, { recursive: true });
      return d;
    },
  };
}
