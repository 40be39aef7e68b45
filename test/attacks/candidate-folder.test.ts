import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPortfolio } from "../../src/runtime/portfolio.js";
import { logEntries } from "../runtime/hook-helpers.js";
import { preToolUse, promptEvent, rmWorkspace, runHookChild } from "./helpers.js";

/**
 * Issue 27 point 13: one bad file in a candidate folder used as the hook's portfolio (a YAML
 * alias bomb, a FIFO) no longer switches the whole folder off: it is skipped with a log line
 * on every event and the good deny beside it holds. (Frozen portfolios stay all or nothing:
 * 7-cache.test.ts, forged-portfolio.test.ts.)
 */
function bomb(levels = 20): string {
  const lines = ['l0: &l0 ["lol","lol"]'];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [*l${i - 1},*l${i - 1}]`);
  return `${lines.join("\n")}\nid: bomb\n`;
}

function folderWithBadFiles() {
  const w = rmWorkspace("fire-attack-13-");
  writeFileSync(join(w.dir, "bomb.yaml"), bomb());
  execFileSync("mkfifo", [join(w.dir, "pipe.yaml")]);
  return w;
}

describe("attack 13: a bad file in a candidate folder costs only itself", () => {
  it("the good candidate loads; each bad file is reported, also from the cache", async () => {
    const { ws, dir } = folderWithBadFiles();
    for (let round = 0; round < 2; round++) {
      const skipped: string[] = [];
      const policies = await loadPortfolio(dir, join(ws, "state"), undefined, (w) =>
        skipped.push(w),
      );
      expect(policies.map((p) => p.id)).toEqual(["rm"]);
      expect(skipped).toHaveLength(2);
      expect(skipped.join("\n")).toMatch(/skipped: .*bomb\.yaml: not valid YAML: .*alias/i);
      expect(skipped.join("\n")).toMatch(/skipped: .*pipe\.yaml/);
    }
  });

  it("the hook still denies rm -rf and logs the skipped files", async () => {
    const { ws, args } = folderWithBadFiles();
    await runHookChild(args, JSON.stringify(promptEvent("s13")), { cwd: ws, ceilingMs: 20_000 });
    const r = await runHookChild(args, JSON.stringify(preToolUse("s13", "rm -rf /")), {
      cwd: ws,
      ceilingMs: 20_000,
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    const last = logEntries(ws).at(-1);
    expect(last?.error).toBeUndefined();
    expect(String(last?.note)).toMatch(/bomb\.yaml.*pipe\.yaml/s);
  }, 30_000);
});
