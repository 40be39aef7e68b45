import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace, type Workspace } from "../../src/core/workspace/load.js";
import type { Manifest } from "../../src/gen/demo.js";
import { DEMO } from "../helpers/demo.js";
import { REPO_ROOT } from "../helpers/paths.js";

const TRACES = join(REPO_ROOT, "traces");
let ws: Workspace;
let manifest: Manifest;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-gen-ws-"));
  manifest = JSON.parse(await readFile(join(TRACES, "generated", "manifest.json"), "utf8"));
  const jobs = (await readdir(join(TRACES, "generated"), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => join(TRACES, "generated", e.name));
  ws = await loadWorkspace(dir, { sources: [...jobs, join(TRACES, "harbor-openclaw")] });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the demo workspace through the real importers", () => {
  it("imports 80 generated and 15 real attempts with no errors", () => {
    expect(ws.errors.map((e) => e.format())).toEqual([]);
    expect(ws.attempts).toHaveLength(DEMO.attempts);
    expect(ws.byFormat).toEqual({ "harbor-trial": DEMO.attempts });
  });

  it("gives every manifest attempt its task, outcome and the planted command as an event", () => {
    const byPath = new Map(ws.attempts.map((a) => [a.source.path, a]));
    for (const t of manifest.tasks) {
      for (const d of t.attemptDetails) {
        const a = byPath.get(join(TRACES, "generated", d.path));
        expect(a, d.path).toBeDefined();
        if (!a) continue;
        expect(a.taskId).toBe(t.taskId);
        expect(a.outcome).toBe(d.outcome);
        expect(a.agent).toBe(d.agent);
        const commands = a.events.filter((e) => e.kind === "tool_call").map((e) => e.command);
        if (d.preFailure) expect(commands[d.preFailure.toolCall - 1]).toBe(d.preFailure.command);
        if (d.evidence) expect(commands[d.evidence.toolCall - 1]).toBe(d.evidence.command);
      }
    }
  });
});
