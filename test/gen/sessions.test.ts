import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { type Manifest, writeDemo } from "../../src/gen/demo.js";
import { fixture } from "../helpers/paths.js";
import { filesUnder } from "./tree.js";

type Row = Record<string, unknown> & { type: string; payload?: { type?: string } };
let dir: string;
let manifest: Manifest;

const rows = async (p: string): Promise<Row[]> =>
  (await readFile(p, "utf8"))
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Row);

/** `type` (and `payload.type`) values seen in the real client logs. */
async function realTypes(files: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const f of files)
    for (const r of await rows(f))
      out.add(r.payload?.type ? `${r.type}:${r.payload.type}` : r.type);
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-gen-sessions-"));
  manifest = (
    await writeDemo({ outDir: join(dir, "traces"), seed: 3, formats: ["claude", "codex"] })
  ).manifest;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("Claude Code and Codex sessions", () => {
  it("write Claude rows of the real types, every tool_use answered by one tool_result", async () => {
    const files = await filesUnder(join(dir, "traces", "claude"), ".jsonl");
    expect(files).toHaveLength(40);
    const real = await realTypes([
      fixture("real-clients/claude-http-log/session.jsonl"),
      fixture("real-clients/claude-rm-deny/session.jsonl"),
    ]);
    for (const f of files) {
      const rs = await rows(f);
      for (const r of rs) expect(real.has(r.type), `${r.type} in ${f}`).toBe(true);
      const blocks = rs.flatMap((r) => {
        const c = (r.message as { content?: unknown } | undefined)?.content;
        return Array.isArray(c) ? (c as { type: string; id?: string; tool_use_id?: string }[]) : [];
      });
      const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
      const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
      expect(results).toEqual(uses);
      expect(
        rs
          .filter((r) => r.type === "assistant")
          .every((r) => (r.message as { content: unknown[] }).content.length === 1),
      ).toBe(true);
    }
  });

  it("write Codex rollouts of the real types, every function_call answered by its output", async () => {
    const files = await filesUnder(join(dir, "traces", "codex"), ".jsonl");
    expect(files).toHaveLength(40);
    const real = await realTypes([
      fixture("real-clients/codex-http-log/session.jsonl"),
      fixture(
        "codex-rollouts-redacted/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl",
      ),
    ]);
    for (const f of files) {
      const rs = await rows(f);
      expect(rs[0]?.type).toBe("session_meta");
      for (const r of rs) {
        const t = r.payload?.type ? `${r.type}:${r.payload.type}` : r.type;
        expect(real.has(t), `${t} in ${f}`).toBe(true);
      }
      const calls = rs
        .filter((r) => r.payload?.type === "function_call")
        .map((r) => r.payload as { call_id: string; arguments: string });
      const outs = rs
        .filter((r) => r.payload?.type === "function_call_output")
        .map((r) => (r.payload as { call_id: string }).call_id);
      expect(outs).toEqual(calls.map((c) => c.call_id));
      for (const c of calls) expect(typeof JSON.parse(c.arguments).cmd).toBe("string");
    }
  });

  it("import through the real importers as unknown-outcome attempts with the manifest's commands", async () => {
    const traces = join(dir, "traces");
    const ws = await loadWorkspace(dir, {
      sources: [join(traces, "claude"), join(traces, "codex")],
    });
    expect(ws.errors.map((e) => e.format())).toEqual([]);
    expect(ws.byFormat).toEqual({ "claude-transcript": 40, "codex-rollout": 40 });
    expect(ws.attempts.every((a) => a.outcome === "unknown")).toBe(true);
    const byPath = new Map(ws.attempts.map((a) => [a.source.path, a]));
    let checked = 0;
    for (const d of manifest.tasks.flatMap((t) => t.attemptDetails)) {
      const a = byPath.get(join(dir, "traces", d.path));
      expect(a, d.path).toBeDefined();
      const commands = (a?.events ?? [])
        .filter((e) => e.kind === "tool_call")
        .map((e) => e.command);
      if (d.preFailure) {
        expect(commands[d.preFailure.toolCall - 1]).toBe(d.preFailure.command);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
