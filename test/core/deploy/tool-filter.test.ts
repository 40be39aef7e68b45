import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  conditionTools,
  portfolioTools,
  toolMatcher,
} from "../../../src/core/deploy/tool-filter.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import type { Candidate } from "../../../src/core/policy/schema.js";
import { fireIn, runFire } from "../../helpers/cli.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { hookEvents, localInput, RECORDED } from "../../real-clients/cases.js";
import { PORTFOLIO, tempWorkspace } from "../../runtime/hook-helpers.js";

const show = (n: ReturnType<typeof conditionTools>) => (n === "any" ? "any" : [...n].sort());

/** A candidate in the real format whose every condition names a shell command. */
function shellOnly(): Record<string, unknown> {
  const c = JSON.parse(readFileSync(join(PORTFOLIO, "rm-guard.json"), "utf8"));
  // its call counter counts every tool's call: without it, only shell commands matter
  c.track = c.track.filter((t: { id: string }) => t.id !== "count-calls");
  // routed on the recorded sessions' task (a static site to serve), so its rules can act there
  c.eligibility = { anyOf: [{ pattern: "static site", flags: "i" }] };
  return c;
}

describe("the tools a portfolio can act on", () => {
  it("reads each condition conservatively: only command and writes restrict the tool", () => {
    expect(show(conditionTools(undefined))).toBe("any");
    expect(show(conditionTools({ command: "x" }))).toEqual(["shell"]);
    expect(show(conditionTools({ writes: "x" }))).toEqual(["edit", "shell"]);
    expect(show(conditionTools({ output: "x" }))).toBe("any");
    expect(show(conditionTools({ tool: "Write" }))).toBe("any"); // a pattern: any name may match
    expect(show(conditionTools({ flag: "deployed" }))).toBe("any");
    expect(show(conditionTools({ command: "x", all: [{ writes: "y" }] }))).toEqual(["shell"]);
    expect(show(conditionTools({ any: [{ command: "x" }, { writes: "y" }] }))).toEqual([
      "edit",
      "shell",
    ]);
    expect(show(conditionTools({ any: [{ command: "x" }, { status: "ok" }] }))).toBe("any");
    expect(show(conditionTools({ not: { command: "x" } }))).toBe("any");
    expect(show(conditionTools({ kind: "stop" }))).toEqual([]);
  });

  it("every reference policy keeps every tool (state read at every event)", () => {
    const { policies } = loadPolicies([join(REPO_ROOT, "candidates/reference"), PORTFOLIO]);
    for (const p of policies) {
      const n = portfolioTools([p.candidate]);
      // e.g. deployment-preservation clears `probing` at any tool's result; rm-guard counts
      // every call; behaviour markers over flags are read at every event
      expect([p.key, toolMatcher(n.tool, "claude")]).toEqual([p.key, ""]);
    }
  });

  it("a portfolio of shell conditions: Bash for both clients, apply_patch is not started", () => {
    const n = portfolioTools([Candidate_(shellOnly())]);
    expect(toolMatcher(n.tool, "claude")).toBe("Bash");
    expect(toolMatcher(n.tool_result, "codex")).toBe("Bash");
    const w = portfolioTools([
      Candidate_({
        ...shellOnly(),
        track: [{ id: "w", at: "tool", when: { writes: "\\.txt$" }, set: "x" }],
      }),
    ]);
    expect(toolMatcher(w.tool, "claude")).toBe("Bash|Write|Edit|MultiEdit|NotebookEdit");
    expect(toolMatcher(w.tool, "codex")).toBe("Bash|apply_patch");
  });

  it.each([
    ["claude", ".claude/settings.local.json"],
    ["codex", ".codex/hooks.json"],
  ])("fire hook install %s with a frozen portfolio writes the matchers", async (harness, rel) => {
    const ws = tempWorkspace();
    mkdirSync(join(ws, "candidates"), { recursive: true });
    writeFileSync(join(ws, "candidates", "shell-guard.json"), JSON.stringify(shellOnly()));
    const f = await fireIn(
      ["freeze", "--name", "p", "--force", "--reason", "test", "test.rm-guard@1", "-w", ws],
      { cwd: ws },
    );
    expect([f.status, f.stderr]).toEqual([0, ""]);
    const home = tempWorkspace();
    const env = { HOME: home, CODEX_HOME: join(home, "codex-home"), CLAUDE_CONFIG_DIR: "" };
    const project = tempWorkspace();
    const args = ["hook", "install", "--harness", harness, "--project", project, "-w", ws];
    const i = await fireIn([...args, "--portfolio", join(ws, "portfolios", "p")], {
      env,
      cwd: project,
    });
    expect([i.status, i.stderr]).toEqual([0, ""]);
    expect(i.stdout).toContain("before a call Bash; after it Bash");
    type S = { hooks: Record<string, { matcher?: string }[]> };
    const s = JSON.parse(readFileSync(join(project, rel), "utf8")) as S;
    expect(s.hooks.PreToolUse?.[0]?.matcher).toBe("Bash");
    expect(s.hooks.PostToolUse?.[0]?.matcher).toBe("Bash");
    expect(s.hooks.Stop?.[0]?.matcher).toBeUndefined();
    // candidate files (editable) or the workspace's newest portfolio: every tool
    const c = await fireIn([...args, "--portfolio", join(ws, "candidates")], { env, cwd: project });
    expect(c.status).toBe(0);
    const s2 = JSON.parse(readFileSync(join(project, rel), "utf8")) as S;
    expect(s2.hooks.PreToolUse?.[0]?.matcher).toBe("");
  });
});

function Candidate_(raw: Record<string, unknown>): Candidate {
  const dir = tempWorkspace();
  writeFileSync(join(dir, "c.json"), JSON.stringify(raw));
  const { policies, errors } = loadPolicies([join(dir, "c.json")]);
  expect(errors).toEqual([]);
  return policies[0]!.candidate;
}

describe("decisions with the matchers, on the real clients' recorded sessions", () => {
  // the recorded sessions with tool calls other than the shell (Write; apply_patch)
  it.each(["claude-claude-write", "codex-apply-patch"])(
    "%s: fewer hook starts, the same firings",
    (name) => {
      const dir = join(RECORDED, name);
      const policy = tempWorkspace();
      writeFileSync(join(policy, "shell-guard.json"), JSON.stringify(shellOnly()));
      const n = portfolioTools(loadPolicies([policy]).policies.map((p) => p.candidate));
      const harness = name.startsWith("claude") ? "claude" : "codex";
      const pre = toolMatcher(n.tool, harness)!.split("|");
      const post = toolMatcher(n.tool_result, harness)!.split("|");
      const events = hookEvents(dir).map((e) => e.input);
      // what the client starts the hook for: tool events only for the matched tool names
      const passes = (i: (typeof events)[number]) =>
        i.hook_event_name === "PreToolUse"
          ? pre.includes(String(i.tool_name))
          : i.hook_event_name?.startsWith("PostToolUse")
            ? post.includes(String(i.tool_name))
            : true;
      const run = (inputs: typeof events) => {
        const ws = tempWorkspace();
        return inputs.flatMap((input) => {
          const r = runFire(["hook", "--portfolio", policy, "--workspace", ws], {
            input: JSON.stringify(localInput(dir, input)),
            cwd: ws,
            env: { FIRE_STATE_DIR: "" },
          });
          expect([r.status, r.stderr]).toEqual([0, ""]);
          return r.stdout.trim()
            ? [`${input.hook_event_name}:${input.tool_use_id ?? ""}:${r.stdout.trim()}`]
            : [];
        });
      };
      const filtered = events.filter(passes);
      expect(filtered.length).toBeLessThan(events.length);
      const all = run(events);
      expect(all.length).toBeGreaterThan(0); // something to compare: it answers in both
      expect(run(filtered)).toEqual(all);
    },
  );
});
