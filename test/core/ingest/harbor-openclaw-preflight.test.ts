import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { neverRan } from "../../../src/core/mine/detectors/never-ran.js";
import { toolFailed } from "../../../src/core/mine/detectors/paths.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

/** A real OpenClaw trial under Harbor (test/fixtures/harbor-openclaw-preflight, README there). */
const TRIAL = resolve(REPO_ROOT, "test/fixtures/harbor-openclaw-preflight/mteb-retrieve__2azWNF8");

describe("an OpenClaw command its harness refused before running it", () => {
  it("is a failed call that never ran; the command run instead is neither", async () => {
    const got = await collect([TRIAL]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0];
    if (!a) throw new Error("no attempt");
    const execs = a.events.filter((e) => e.kind === "tool_call" && e.tool === "exec");
    const refused = execs.find((e) => e.command === "cd /app && python find_similar.py");
    const ran = execs.find((e) => e.command === "python /app/find_similar.py");
    if (!refused || !ran) throw new Error("the two exec calls are not there");
    const result = a.events.find((e) => e.kind === "tool_result" && e.callId === refused.callId);
    expect(result?.exitCode).toBeUndefined();
    expect(result?.isError).toBe(true);
    expect(toolFailed(a, refused)).toBe(true);
    expect(neverRan(a, refused)).toBe(true);
    expect(neverRan(a, ran)).toBe(false);
  });
});
