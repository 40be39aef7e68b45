import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPortfolioDir } from "../../src/core/freeze/default.js";
import { loadPolicies } from "../../src/core/policy/load.js";
import { readRegularFile } from "../../src/core/regular-file.js";
import { logEntries } from "../runtime/hook-helpers.js";
import {
  denyCandidate,
  preToolUse,
  promptEvent,
  rmWorkspace,
  runHookChild,
  writeFrozen,
} from "./helpers.js";

/** Issue 16 item 5: a FIFO (or other special file) anywhere fire reads must not block. */
const fifo = (path: string) => execFileSync("mkfifo", [path]);

const setup = () => rmWorkspace("fire-attack-5-");

describe("attack 5: special files never block", () => {
  it("readRegularFile refuses a FIFO at once, naming it", () => {
    const d = mkdtempSync(join(tmpdir(), "fire-attack-5r-"));
    fifo(join(d, "p"));
    expect(() => readRegularFile(join(d, "p"))).toThrow(/p: a FIFO, not a regular file/);
  });

  it("a FIFO as transcript_path: the hook answers (task text unknown) within a ceiling", async () => {
    const { ws, args } = setup();
    fifo(join(ws, "t.jsonl"));
    const r = await runHookChild(
      args,
      JSON.stringify(preToolUse("fifo-t", "rm -rf /", { transcript_path: join(ws, "t.jsonl") })),
      { cwd: ws, ceilingMs: 30_000 },
    );
    expect(r.signal).toBeNull();
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
  }, 40_000);

  it("a FIFO as the state file: reported as corrupt, not waited on", async () => {
    const { ws, args } = setup();
    mkdirSync(join(ws, ".fire/state"), { recursive: true });
    fifo(join(ws, ".fire/state/fifo-s.json"));
    const r = await runHookChild(args, JSON.stringify(promptEvent("fifo-s")), {
      cwd: ws,
      ceilingMs: 30_000,
    });
    expect(r.signal).toBeNull();
    expect(logEntries(ws).at(-1)?.error).toMatch(/corrupted state file/);
  }, 40_000);

  it("a FIFO as a frozen policy file or as a manifest: rejected / skipped, not waited on", async () => {
    const { ws } = setup();
    const frozen = writeFrozen(join(ws, "portfolios/p1"), [denyCandidate("rm", "\\brm\\b")]);
    const policy = join(frozen, "policies/rm@1.json");
    execFileSync("rm", [policy]);
    fifo(policy);
    const r = await runHookChild(
      ["--portfolio", frozen, "--workspace", ws],
      JSON.stringify(promptEvent("fifo-p")),
      { cwd: ws, ceilingMs: 30_000 },
    );
    expect(r.signal).toBeNull();
    expect(logEntries(ws).at(-1)?.error).toMatch(/frozen portfolio rejected: .*FIFO/);
    // a FIFO manifest in portfolios/*: the default-portfolio scan skips it
    mkdirSync(join(ws, "portfolios/p2"));
    fifo(join(ws, "portfolios/p2/manifest.json"));
    expect(defaultPortfolioDir(ws)).toBe(frozen);
  }, 40_000);

  it("a FIFO candidate is an error naming it; its neighbours load", () => {
    const { dir } = setup();
    fifo(join(dir, "pipe.yaml"));
    const r = loadPolicies([dir]);
    expect(r.policies.map((p) => p.id)).toEqual(["rm"]);
    expect(r.errors.map((e) => e.format())).toEqual([
      expect.stringMatching(/pipe\.yaml: cannot read: .*a FIFO, not a regular file/),
    ]);
  });
});
