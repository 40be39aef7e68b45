import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openCurrentWorkspace, type StaleReason } from "../../src/core/workspace/open.js";
import { fireIn } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

const JOB = resolve(REPO_ROOT, "traces/generated/2026-10-12__08-00-00__codex__gpt-5.1-codex");
const dir = mkdtempSync(join(tmpdir(), "fire-read-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function attemptsJson(): Promise<{ id: string; nEvents: number }[]> {
  const r = await fireIn(["attempts", "--json", "-w", dir]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Whether an open answered from the index alone (no source read), and why it did not. */
async function open(): Promise<{ indexed: boolean; stale: StaleReason[] }> {
  const stale: StaleReason[] = [];
  let read = 0;
  const ws = await openCurrentWorkspace(dir, {
    onStale: (why) => stale.push(why),
    onProgress: () => {
      read++;
    },
  });
  expect(ws.index).toBeDefined(); // a read of the sources writes the index and serves from it
  return { indexed: read === 0, stale };
}

describe("read commands answer from the index while the sources are unchanged", () => {
  it("reads the sources once, then the index; a changed source is read again", async () => {
    cpSync(JOB, join(dir, "traces", "job"), { recursive: true });
    writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"] }));
    const first = await attemptsJson(); // no index yet: a full read, which writes it
    expect(first.length).toBeGreaterThan(5);
    expect(await open()).toEqual({ indexed: true, stale: [] });
    // the same rows from the index, event counts included, without parsing
    expect(await attemptsJson()).toEqual(first);
    const triage = await fireIn(["triage", "--json", "-w", dir]);

    const trial = readdirSync(join(dir, "traces", "job")).find((n) => n.includes("__"));
    rmSync(join(dir, "traces", "job", trial as string), { recursive: true });
    expect(await open()).toEqual({ indexed: false, stale: ["sources changed"] });
    const after = await attemptsJson();
    expect(after.length).toBe(first.length - 1);
    expect(await open()).toEqual({ indexed: true, stale: [] });
    expect((await fireIn(["triage", "--json", "-w", dir])).stdout).not.toBe(triage.stdout);
  });
});
