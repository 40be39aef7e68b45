import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serializeAttempt } from "../../../src/core/ingest/fire-jsonl.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

describe("fire JSONL", () => {
  it("import(export(x)) equals x for every attempt of every fixture set", async () => {
    const sources = [
      fixture("harbor-openclaw"),
      fixture("atif-golden"),
      fixture("codex-rollouts-redacted"),
      fixture("real-clients/claude-rm-deny/session.jsonl"),
      fixture("real-clients/codex-rm-deny/session.jsonl"),
      join(REPO_ROOT, "test/fixtures/tb1"),
    ];
    const original = (await collect(sources)).attempts;
    expect(original.length).toBe(15 + 3 + 4 + 2 + 4);
    const tmp = mkdtempSync(join(tmpdir(), "fire-jsonl-"));
    try {
      const file = join(tmp, "export.jsonl");
      writeFileSync(file, `${original.map(serializeAttempt).join("\n")}\n`);
      const back = await collect([file]);
      expect(back.errors).toEqual([]);
      expect(back.units.map((u) => u.format)).toEqual(["fire-jsonl"]);
      expect(back.attempts).toEqual(original);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("writes one line per attempt, id and source first, so the format is detected by content", () => {
    const a = Attempt.parse({
      id: "x-1",
      source: { format: "claude-transcript", path: "a\nb.jsonl" },
      taskId: "t",
      taskText: "line one\nline two",
      outcome: "pass",
      events: [],
    });
    const line = serializeAttempt(a);
    expect(line).not.toContain("\n");
    expect(
      line.startsWith('{"id":"x-1","source":{"format":"claude-transcript","path":"a\\nb.jsonl"}'),
    ).toBe(true);
    expect(Attempt.parse(JSON.parse(line))).toEqual(a);
  });
});
