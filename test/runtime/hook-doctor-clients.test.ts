import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diagnoseHook } from "../../src/core/deploy/doctor.js";
import { installHook } from "../../src/core/deploy/install.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

/**
 * `fire hook doctor` on what the clients themselves decide: Claude Code's managed settings
 * (`allowManagedHooksOnly`), a Claude Agent SDK host, and an untrusted Codex project.
 */
function setup(harness: "claude" | "codex", opts: { noProjectTrust?: boolean } = {}) {
  const home = tempWorkspace();
  const env = { HOME: home, CODEX_HOME: join(home, "codex-home"), CLAUDE_CONFIG_DIR: "" };
  const project = tempWorkspace();
  const managed = join(tempWorkspace(), "claude-code");
  installHook({ harness, project, env, portfolio: PORTFOLIO, workspace: tempWorkspace(), ...opts });
  const target = { harness, env };
  const doctor = () => diagnoseHook({ harness, project, env }, { claudeManagedDir: managed });
  return { project, managed, doctor, target };
}

const texts = (r: ReturnType<typeof diagnoseHook>, level: string) =>
  r.findings.filter((f) => f.level === level).map((f) => f.text);

describe("fire hook doctor: the clients' own switches", () => {
  it("claude: allowManagedHooksOnly in managed settings (file or drop-in) is a problem", () => {
    const { managed, doctor } = setup("claude");
    expect(doctor().ok).toBe(true);
    mkdirSync(join(managed, "managed-settings.d"), { recursive: true });
    writeFileSync(join(managed, "managed-settings.json"), JSON.stringify({ model: "opus" }));
    expect(doctor().ok).toBe(true);
    writeFileSync(
      join(managed, "managed-settings.d", "10-hooks.json"),
      JSON.stringify({ allowManagedHooksOnly: true }),
    );
    const r = doctor();
    expect(r.ok).toBe(false);
    expect(texts(r, "problem")).toEqual([
      expect.stringMatching(
        /^managed hooks only: .*managed-settings\.d\/10-hooks\.json sets "allowManagedHooksOnly": true, so Claude Code runs only hooks from managed settings and skips fire's hook in .*settings\.local\.json/,
      ),
    ]);
    writeFileSync(
      join(managed, "managed-settings.json"),
      JSON.stringify({ disableAllHooks: true }),
    );
    expect(texts(doctor(), "problem")).toContainEqual(
      expect.stringMatching(/^hooks disabled: managed settings .*managed-settings\.json/),
    );
  });

  it("claude: a project hosting the Agent SDK gets a note naming its bundled client", () => {
    const { project, doctor } = setup("claude");
    expect(texts(doctor(), "note")).toEqual([]);
    const sdk = join(project, "node_modules/@anthropic-ai/claude-agent-sdk");
    mkdirSync(sdk, { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ dependencies: { "@anthropic-ai/claude-agent-sdk": "^0.9.0" } }),
    );
    writeFileSync(
      join(sdk, "package.json"),
      JSON.stringify({
        name: "@anthropic-ai/claude-agent-sdk",
        version: "0.9.3",
        claudeCodeVersion: "2.1.300",
      }),
    );
    const r = doctor();
    expect(r.ok).toBe(true); // a note: whether the host loads settings is in its code
    expect(texts(r, "note")).toEqual([
      expect.stringMatching(
        /^Claude Agent SDK host: .* uses @anthropic-ai\/claude-agent-sdk 0\.9\.3, which runs its own bundled Claude Code 2\.1\.300, not the claude installed here; .*settingSources/,
      ),
    ]);
  });

  it("claude: a Python Agent SDK host is named from its requirements", () => {
    const { project, doctor } = setup("claude");
    writeFileSync(join(project, "requirements.txt"), "httpx\nclaude-agent-sdk==0.2.1\n");
    expect(texts(doctor(), "note")).toEqual([
      expect.stringContaining("requirements.txt names claude-agent-sdk (Python)"),
    ]);
  });

  it("codex: an untrusted project is a problem that names the command that trusts it", () => {
    const { project, doctor, target } = setup("codex", { noProjectTrust: true });
    const r = doctor();
    expect(r.ok).toBe(false);
    expect(texts(r, "problem")).toHaveLength(1);
    const line = texts(r, "problem")[0] ?? "";
    expect(line).toContain(`Codex loads ${project}/.codex/ disabled`);
    expect(line).toContain(
      `trust it with \`fire hook install --harness codex --project ${project}\``,
    );
    // the command it names does trust it
    installHook({ ...target, project, portfolio: PORTFOLIO, workspace: tempWorkspace() });
    expect(doctor().ok).toBe(true);
  });
});

/**
 * Recorded with the REAL Claude Code 2.1.332 by test/real-clients/managed-hooks-only.sh: fire's
 * hook installed with --user, managed settings faked in the rig's private mount namespace.
 */
describe("allowManagedHooksOnly in the real Claude Code", () => {
  const dir = join(REPO_ROOT, "test/fixtures/real-clients/managed-hooks-only");
  const read = (c: string, f: string) => readFileSync(join(dir, c, f), "utf8");

  it("skips fire's hook without a word, and doctor said so before the client started", () => {
    expect(read("managed-only", "hook-ran.txt").trim()).toBe("no");
    expect(read("managed-only", "marker.txt").trim()).toBe("yes");
    expect(read("managed-only", "pre-client.txt")).toMatch(
      /PROBLEM: managed hooks only: \/etc\/claude-code\/managed-settings\.json sets "allowManagedHooksOnly": true/,
    );
    expect(read("managed-only", "pre-client.txt")).toContain(
      "the fire hook for claude will not act as installed",
    );
  });

  it("the control (no managed settings) ran fire's hook, and doctor said it would", () => {
    expect(read("control", "hook-ran.txt").trim()).toBe("yes");
    expect(read("control", "pre-client.txt")).toContain("the fire hook for claude will run");
  });
});
