import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionTaskId } from "../../../src/core/ingest/text.js";
import { fixture } from "../../helpers/paths.js";
import { collect } from "./collect.js";

describe("task ids of sessions without a verifier (real Claude Code and Codex logs)", () => {
  it("name the folder the session ran in and the task, not an opaque hash", async () => {
    const got = await collect([
      fixture("real-clients", "claude-rm-deny", "session.jsonl"),
      fixture("real-clients", "codex-rm-deny", "session.jsonl"),
    ]);
    expect(got.errors).toEqual([]);
    const ids = Object.fromEntries(got.attempts.map((a) => [a.agent, a.taskId]));
    // the cwd recorded in the log: /home/user/runs/claude-rm-deny-work
    expect(ids["claude-code"]).toMatch(
      /^claude-rm-deny-work\/clean-the-build-directory-then-f-[0-9a-f]{8}$/,
    );
    expect(ids.codex).toMatch(/^codex-rm-deny-work\/[a-z0-9-]+-[0-9a-f]{8}$/);
  });

  it("group equal prompts in one folder and keep folders and prompts apart", async () => {
    const got = await collect([fixture("codex-rollouts-redacted")]);
    expect(got.attempts).toHaveLength(4);
    for (const a of got.attempts) expect(a.taskId).toMatch(/^[0-9a-f]{10}\/[a-z0-9-]+$/);
    const folders = new Set(got.attempts.map((a) => a.taskId.split("/")[0]));
    expect(folders.size).toBe(3); // two rollouts ran in the same (pseudonymised) folder
    expect(sessionTaskId("fix it", "/w/app")).toBe(sessionTaskId(" fix it\n", "/w/app/"));
    expect(sessionTaskId("fix it", "/w/app")).not.toBe(sessionTaskId("fix it", "/w/api"));
    expect(sessionTaskId("fix it", "C:\\Users\\me\\app")).toMatch(/^app\/fix-it-/);
    expect(sessionTaskId("fix it", undefined)).toMatch(/^task-[0-9a-f]{10}$/);
  });

  it("a Claude log without cwd rows is named by the folder it sits in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fire-taskid-"));
    const src = fixture("real-clients", "claude-rm-deny", "session.jsonl");
    const rows = (await readFile(src, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const r = JSON.parse(l) as Record<string, unknown>;
        delete r.cwd;
        return JSON.stringify(r);
      });
    const folder = join(dir, "-home-me-webapp");
    await mkdir(folder);
    await writeFile(join(folder, "s.jsonl"), `${rows.join("\n")}\n`);
    const got = await collect([join(folder, "s.jsonl")]);
    expect(got.attempts[0]?.taskId).toMatch(/^-home-me-webapp\/clean-the-build/);
  });
});
