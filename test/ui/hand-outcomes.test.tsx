import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixture } from "../helpers/paths.js";
import { KEY, renderApp } from "./helpers.js";

// Real Codex sessions: no verifier, so every attempt is `unknown` until given an outcome.
const dir = mkdtempSync(join(tmpdir(), "fire-ui-hand-"));
cpSync(fixture("codex-rollouts-redacted"), join(dir, "traces"), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hand outcomes and tags in Triage", () => {
  it("+ gives an attempt without a verifier a pass, # tags it; triage counts it", async () => {
    const app = renderApp(dir, { columns: 140, rows: 24 });
    await app.see("4 attempts");
    expect(app.frame()).toContain("0 reachable, 0 unsolved, 0 solved");
    await app.press(KEY.enter);
    await app.see("+ pass", "- fail", "# tags");
    await app.press("+");
    await app.see("pass✎", ": pass by hand: recorded in mining/outcomes.json");
    await app.see("0 unsolved, 1 solved");
    await app.press("#");
    await app.see("tags of");
    await app.press(..."flaky, env".split(""));
    await app.press(KEY.enter);
    await app.see("#flaky #env");
    const saved = JSON.parse(readFileSync(join(dir, "mining/outcomes.json"), "utf8"));
    const [entry] = Object.values(saved.attempts) as { outcome: string; tags: string[] }[];
    expect(entry).toMatchObject({ outcome: "pass", tags: ["flaky", "env"] });
    await app.press("=");
    await app.see("0 solved");
    expect(existsSync(join(dir, "mining/outcomes.json"))).toBe(true);
    app.unmount();
  });
});
