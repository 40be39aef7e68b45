import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { readIntactPlan, writePlan } from "../../../src/core/screening/plan/plan-file.js";
import type { ScreenPlan } from "../../../src/core/screening/plan/schema.js";
import {
  checkStandaloneHook,
  harborHookFlags,
  writeArmPayload,
} from "../../../src/core/screening/run/payload.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");
const TASK = readFileSync(
  join(REPO_ROOT, "test/fixtures/screens/dataset/report-sales/instruction.md"),
  "utf8",
).trim();
const HOOK = join(REPO_ROOT, "dist/runtime/hook.standalone.mjs");
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

async function screen(): Promise<{ ws: string; plan: ScreenPlan }> {
  const ws = mkdtempSync(join(tmpdir(), "fire-payload-"));
  const candidates = loadPolicies([CANDIDATE]).policies.map((p) => p.candidate);
  const built = buildPlan({
    name: "pay",
    seed: 1,
    attempts: 1,
    arms: ["baseline", "policy", "sham"],
    source: { kind: "candidate", path: CANDIDATE },
    candidates,
    tasks: [{ id: "standin/report-sales", cohort: "eligible" }],
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  await writePlan(ws, built);
  return { ws, plan: await readIntactPlan(ws, "pay") };
}

/**
 * A "container": the payload folder ALONE copied to a fresh place (as the mount makes it
 * /fire/payload), a logs folder for /logs/agent, an empty cwd and no FIRE_* environment.
 * Each event runs the command exactly as the delivered settings file lists it.
 */
function container(payloadDir: string, settingsFile: string, opts: { runtime?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), "fire-container-"));
  const mounted = join(root, "fire-payload");
  cpSync(payloadDir, mounted, { recursive: true });
  const logs = join(root, "logs-agent");
  const cwd = join(root, "app");
  mkdirSync(logs);
  mkdirSync(cwd);
  const settings = JSON.parse(readFileSync(join(mounted, settingsFile), "utf8"));
  // The container has NO node on PATH (Harbor's claude-code agent on an apt image): only the
  // runtime the payload mounts at /fire/node/glibc/node (this host's node) can run the hook.
  const toHost = (text: string) =>
    text
      .replaceAll(
        "/fire/node/glibc/node",
        opts.runtime === false ? join(root, "none") : process.execPath,
      )
      .replaceAll("/fire/node/musl/node", join(root, "no-musl-node"))
      .replaceAll("/fire/payload", mounted)
      .replaceAll("/logs/agent", logs);
  const launcher = join(mounted, "fire-hook.sh");
  writeFileSync(launcher, toHost(readFileSync(launcher, "utf8")));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("FIRE_") && k !== "NODE_PATH"),
  );
  // a PATH with the shell tools a slim image has, and no node
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const tool of ["sh", "ls", "cat", "mkdir", "dirname", "date"])
    symlinkSync(
      execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim(),
      join(bin, tool),
    );
  env.PATH = bin;
  const send = (input: Record<string, unknown>): unknown => {
    const command: string = settings.hooks[input.hook_event_name as string][0].hooks[0].command;
    const host = toHost(command);
    const out = execFileSync(join(bin, "sh"), ["-c", host], {
      input: JSON.stringify(input),
      cwd,
      env,
      encoding: "utf8",
    }).trim();
    return out ? JSON.parse(out) : null;
  };
  const log = () =>
    readFileSync(join(logs, "fire-hook-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { mounted, logs, send, log, settings };
}

const base = { session_id: "s1", cwd: "/app" };
const events = {
  prompt: { ...base, hook_event_name: "UserPromptSubmit", prompt: TASK },
  write: {
    ...base,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "echo totals > report.md" },
  },
  stop: { ...base, hook_event_name: "Stop", stop_hook_active: false },
};

describe("Harbor hook payloads", () => {
  let ws: string;
  let plan: ScreenPlan;
  beforeAll(async () => {
    execFileSync(process.execPath, [join(REPO_ROOT, "dist/build/bundle.js")]);
    ({ ws, plan } = await screen());
  }, 60_000);

  it("baseline gets none; a hooked arm gets the hook, its hash-pinned portfolio and settings", () => {
    const screenDir = join(ws, "screens/pay");
    expect(
      writeArmPayload({ hookFile: HOOK, screenDir, plan, arm: "baseline", harness: "claude" }),
    ).toBe(undefined);
    const glibc = { path: process.execPath, libc: "glibc" as const, arch: "x86_64" };
    const p = writeArmPayload({
      hookFile: HOOK,
      screenDir,
      plan,
      arm: "policy",
      harness: "claude",
      runtimes: { glibc },
    });
    if (!p) throw new Error("no payload");
    expect(readdirSync(p.dir).sort()).toEqual([
      "claude-settings.json",
      "codex-requirements.toml",
      "fire-hook.mjs",
      "fire-hook.sh",
      "payload.json",
      "portfolio.json",
    ]);
    expect(p.manifest.files).toEqual({
      "portfolio.json": sha256(readFileSync(join(p.dir, "portfolio.json"))),
      "fire-hook.mjs": sha256(readFileSync(join(p.dir, "fire-hook.mjs"))),
      "fire-hook.sh": sha256(readFileSync(join(p.dir, "fire-hook.sh"))),
      "claude-settings.json": sha256(readFileSync(join(p.dir, "claude-settings.json"))),
      "codex-requirements.toml": sha256(readFileSync(join(p.dir, "codex-requirements.toml"))),
    });
    expect(p.command).toBe(
      `sh /fire/payload/fire-hook.sh --payload /fire/payload --sha256 ${p.manifest.files["portfolio.json"]} --log /logs/agent/fire-hook-log.jsonl --state-dir /logs/agent/fire-state # fire-hook`,
    );
    expect(p.mounts).toEqual([
      { type: "bind", source: p.dir, target: "/fire/payload", read_only: true },
      {
        type: "bind",
        source: join(p.dir, "claude-settings.json"),
        target: "/etc/claude-code/managed-settings.json",
        read_only: true,
      },
      // the Node runtime the hook runs on, for images without node
      { type: "bind", source: process.execPath, target: "/fire/node/glibc/node", read_only: true },
    ]);
    const flags = harborHookFlags(p);
    expect(flags.startsWith("--mounts '")).toBe(true);
    expect(JSON.parse(flags.slice("--mounts '".length, -1))).toEqual(p.mounts);
    const settings = JSON.parse(readFileSync(join(p.dir, "claude-settings.json"), "utf8"));
    expect(Object.keys(settings.hooks).sort()).toEqual(
      [
        "PostToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "Stop",
        "SubagentStop",
        "UserPromptSubmit",
      ].sort(),
    );
    const codex = writeArmPayload({
      hookFile: HOOK,
      screenDir,
      plan,
      arm: "sham",
      harness: "codex",
    });
    expect(codex?.mounts[1]?.target).toBe("/etc/codex/requirements.toml");
    // Codex's managed requirements: [hooks] as TOML, the shape its requirements.toml takes
    const toml = parseToml(readFileSync(join(codex?.dir ?? "", "codex-requirements.toml"), "utf8"));
    const hooks = toml.hooks as Record<
      string,
      { matcher?: string; hooks: { command: string }[] }[]
    >;
    expect(Object.keys(hooks).sort()).toEqual([
      "PostToolUse",
      "PreToolUse",
      "Stop",
      "UserPromptSubmit",
    ]);
    expect(hooks.PreToolUse?.[0]).toMatchObject({
      matcher: "",
      hooks: [{ type: "command", timeout: 30 }],
    });
    expect(hooks.Stop?.[0]?.hooks[0]?.command).toBe(codex?.command);
  });

  it("the hook bundle imports only node built-ins", () => {
    const code = readFileSync(join(REPO_ROOT, "dist/runtime/hook.standalone.mjs"), "utf8");
    const specs = [
      ...code.matchAll(/(?:\bfrom|\bimport\(|\b__require\(|\b__fireBuiltin\()\s*["']([^"']+)["']/g),
    ].map((m) => m[1] as string);
    expect(specs.length).toBeGreaterThan(3);
    const builtins = new Set(["fs", "path", "util", "assert", "events", "stream", "constants"]);
    expect(specs.filter((s) => !s.startsWith("node:") && !builtins.has(s))).toEqual([]);
  });

  /** The policy arm's Claude payload for screen `pay`, delivered into a fresh container. */
  const policyContainer = (opts: { runtime?: boolean } = {}) => {
    const p = writeArmPayload({
      hookFile: HOOK,
      screenDir: join(ws, "screens/pay"),
      plan,
      arm: "policy",
      harness: "claude",
    });
    if (!p) throw new Error("no payload");
    return container(p.dir, "claude-settings.json", opts);
  };

  it("runs from a lone copy of the payload with the command its settings give", () => {
    const c = policyContainer();
    expect(c.send(events.prompt)).toBe(null);
    expect(c.send(events.write)).toBe(null);
    expect(c.send(events.stop)).toEqual({
      decision: "block",
      reason:
        "Before you stop, open the report you wrote and check every item the task asks for is in it.",
    });
    const log = c.log();
    expect(log.map((e) => e.event)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
    expect(log[2].firings.map((f: { ruleId: string }) => f.ruleId)).toEqual(["read-back"]);
    expect(log.every((e) => e.error === undefined)).toBe(true);
    expect(readdirSync(join(c.logs, "fire-state"))).toContain("s1.json");
  });

  it("without a Node runtime for its C library and no node on PATH: no answer, a logged reason", () => {
    const c = policyContainer({ runtime: false });
    expect(c.send(events.write)).toBe(null);
    const log = c.log();
    expect(log).toHaveLength(1);
    expect(log[0].error).toBe(
      "no node runtime in this container: none was mounted for its C library (glibc) and there is no node on PATH",
    );
  });

  it("a tampered portfolio fails its hash check: no answer, one logged fault per event", () => {
    const c = policyContainer();
    const file = join(c.mounted, "portfolio.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("Before you stop", "Just stop"));
    expect(c.send(events.prompt)).toBe(null);
    expect(c.send(events.write)).toBe(null);
    expect(c.send(events.stop)).toBe(null);
    const log = c.log();
    expect(log).toHaveLength(3);
    for (const e of log) expect(e.error).toMatch(/portfolio\.json fails its hash check/);
  });

  it("refuses a standalone hook older than the modules it was built from", () => {
    const dist = mkdtempSync(join(tmpdir(), "fire-dist-"));
    mkdirSync(join(dist, "runtime"));
    mkdirSync(join(dist, "core"));
    writeFileSync(join(dist, "core/a.js"), "export const a = 1;\n");
    writeFileSync(join(dist, "runtime/hook.standalone.mjs"), "export {};\n");
    const s = statSync(join(dist, "core/a.js"));
    const manifest = {
      entry: "hook.standalone.mjs",
      sources: [
        {
          path: "core/a.js",
          size: s.size,
          mtimeMs: s.mtimeMs,
          sha256: sha256("export const a = 1;\n"),
        },
      ],
    };
    writeFileSync(join(dist, "runtime/hook.standalone.json"), JSON.stringify(manifest));
    expect(() => checkStandaloneHook(join(dist, "runtime/hook.standalone.mjs"))).not.toThrow();
    writeFileSync(join(dist, "core/a.js"), "export const a = 2;\n");
    expect(() => checkStandaloneHook(join(dist, "runtime/hook.standalone.mjs"))).toThrow(
      /older than the compiled modules: run `npm run build`/,
    );
    expect(() => checkStandaloneHook(join(dist, "runtime/none.mjs"))).toThrow(/is missing/);
  });
});
