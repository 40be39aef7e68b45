import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import type { Attempt, Event } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/**
 * A real Terminus-2 trial (test/fixtures/harbor-terminus2/README.md): its last reply sends
 * three checks together with `mark_task_complete`, and their output (a SyntaxError and gcc
 * errors) comes back with no agent turn after it.
 */
let a: Attempt;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-terminus2")]);
  expect(got.errors).toEqual([]);
  a = got.attempts[0] as Attempt;
});

const hit = (x: Attempt, id: string) =>
  runDetectors(x, { siblings: [] }).find((h) => h.detectorId === id);

/** The same trial with `ev` inserted before its final stop event. */
function withBeforeStop(x: Attempt, ...evs: Event[]): Attempt {
  const events = [...x.events.slice(0, -1), ...evs, ...x.events.slice(-1)];
  return { ...x, events: events.map((e, index) => ({ ...e, index })) };
}

describe("checks the agent never read (sent with its final 'done')", () => {
  it("are no checks: stop without any check after the last write", () => {
    expect(hit(a, "stop.no-check-after-write")?.reason).toBe(
      "the checks after the last write ran with the final stop: their output was never read",
    );
  });

  it("near miss: an agent turn after their output means the agent saw it", () => {
    const read = withBeforeStop(a, {
      index: 0,
      kind: "message",
      role: "agent",
      input: "The Python run fails with a SyntaxError; the polyglot needs another layout.",
    });
    expect(hit(read, "stop.no-check-after-write")).toBeUndefined();
  });

  it("a failed build left no binary: no stray by-product, although the grader names it", () => {
    expect(a.verifierTests?.some((t) => /cmain/.test(t.message ?? ""))).toBe(true);
    expect(hit(a, "output.stray-artifact")).toBeUndefined();
    // near miss: the same gcc call with a successful result of its own leaves the binary
    const gcc = a.events.find((e) => e.kind === "tool_call" && /gcc .*-o/.test(e.command ?? ""));
    expect(gcc).toBeDefined();
    const at = a.events.indexOf(gcc as Event);
    const verifierTests = a.verifierTests;
    const built = [
      ...a.events.slice(0, at + 1),
      { index: 0, kind: "tool_result", callId: gcc?.callId, output: "", exitCode: 0 } as Event,
      ...a.events.slice(at + 1),
    ].map((e, index) => ({ ...e, index }));
    // the grader's own gcc command names the binary, but does not report it left over
    expect(hit({ ...a, events: built }, "output.stray-artifact")).toBeUndefined();
    const reported = (verifierTests ?? []).map((t) =>
      /cmain/.test(t.message ?? "")
        ? {
            ...t,
            message: "AssertionError: Expected only main.py.c, found: ['main.py.c', 'cmain']",
          }
        : t,
    );
    expect(
      hit({ ...a, events: built, verifierTests: reported }, "output.stray-artifact")?.subject,
    ).toBe("/app/polyglot/cmain");
  });
});
