import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inspectNodeBinary } from "../../../src/core/deploy/node-runtime.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { readIntactPlan, writePlan } from "../../../src/core/screening/plan/plan-file.js";
import { packNodeRuntimes, verifyPayload } from "../../../src/core/screening/run/adapter.js";
import { type ArmPayload, writeArmPayload } from "../../../src/core/screening/run/payload.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/**
 * fire's Harbor agent adapter (harbor/fire_harbor_agent.py) against a stand-in of Harbor's
 * agent and environment contract (test/helpers/harbor-sandbox/, see its README): a real
 * Python run of the adapter's `setup(environment)` in a chroot sandbox whose `/fire`, `/etc`
 * and `/logs` exist only inside, then a scripted client that runs the hook commands the
 * uploaded managed settings list, inside the sandbox, as the agent user.
 */

const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");
const HOOK = join(REPO_ROOT, "dist/runtime/hook.standalone.mjs");
const DRIVER = join(REPO_ROOT, "test/helpers/harbor-sandbox/run_adapter.py");
const TASK = readFileSync(
  join(REPO_ROOT, "test/fixtures/screens/dataset/report-sales/instruction.md"),
  "utf8",
).trim();
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** Root, unshare/nsenter/chroot and python3 >= 3.11 (tomllib): what the stand-in sandbox needs. */
function sandboxMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "not root";
  if (process.platform !== "linux") return "not Linux";
  const py = spawnSync("python3", ["-c", "import tomllib"], { encoding: "utf8" });
  if (py.status !== 0) return "no python3 >= 3.11";
  const ns = spawnSync("unshare", ["--mount", "--fork", "true"], { encoding: "utf8" });
  if (ns.status !== 0) return "unshare --mount is not permitted";
  if (spawnSync("sh", ["-c", "command -v nsenter && command -v chroot"]).status !== 0)
    return "no nsenter/chroot";
  return undefined;
}
const missing = sandboxMissing();
if (missing) process.stderr.write(`skipped: the Harbor adapter sandbox tests (${missing})\n`);

const base = { session_id: "s1", cwd: "/app" };
const EVENTS = [
  { ...base, hook_event_name: "UserPromptSubmit", prompt: TASK },
  {
    ...base,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "echo totals > report.md" },
  },
  { ...base, hook_event_name: "Stop", stop_hook_active: false },
];

interface DriverResult {
  stage: "init" | "setup" | "run";
  error?: string;
  ignoredKwargs?: string[];
  client?: string;
  uploads?: string[];
  delivery?: {
    harness: string;
    payload: null | {
      arm: string;
      sandbox: string;
      payloadSha256: string;
      verified: Record<string, string>;
      settings: string;
      node: { source: string; version: string; libc: string; imageNode?: string };
    };
  };
  answers?: unknown[];
  hookLog?: { event: string; error?: string }[];
  sandboxLog?: { sandbox: string }[];
  uploadedNode?: boolean;
  modes?: Record<string, string>;
}

function drive(cfg: {
  harness: "claude" | "codex";
  kwargs: Record<string, string>;
  node?: "image" | "none" | "old";
  user?: string;
  corrupt?: string;
}): DriverResult {
  const logsDir = mkdtempSync(join(tmpdir(), "fire-trial-agent-"));
  const out = execFileSync(
    "python3",
    [
      DRIVER,
      JSON.stringify({ ...cfg, adapterDir: join(REPO_ROOT, "harbor"), logsDir, events: EVENTS }),
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  return JSON.parse(out) as DriverResult;
}

async function screenWorkspace(): Promise<{ ws: string; screenDir: string }> {
  const ws = mkdtempSync(join(tmpdir(), "fire-adapter-"));
  const candidates = loadPolicies([CANDIDATE]).policies.map((p) => p.candidate);
  await writePlan(
    ws,
    buildPlan({
      name: "cloud",
      seed: 1,
      attempts: 1,
      arms: ["baseline", "policy"],
      source: { kind: "candidate", path: CANDIDATE },
      candidates,
      tasks: [{ id: "standin/report-sales", cohort: "eligible" }],
      createdAt: "2026-01-01T00:00:00.000Z",
    }),
  );
  return { ws, screenDir: join(ws, "screens/cloud") };
}

describe.skipIf(missing)("fire's Harbor adapter in a stand-in sandbox", () => {
  const payloads: Partial<Record<"claude" | "codex", ArmPayload>> = {};
  let nodeDir = "";
  const kwargs = (h: "claude" | "codex", withNode = true): Record<string, string> => {
    const p = payloads[h];
    if (!p) throw new Error("no payload");
    return {
      fire_payload: p.dir,
      fire_payload_sha256: verifyPayload(p.dir),
      ...(withNode ? { fire_node: nodeDir } : {}),
    };
  };

  beforeAll(async () => {
    execFileSync(process.execPath, [join(REPO_ROOT, "dist/build/bundle.js")]);
    for (const harness of ["claude", "codex"] as const) {
      const { ws, screenDir } = await screenWorkspace();
      const plan = await readIntactPlan(ws, "cloud");
      payloads[harness] = writeArmPayload({
        hookFile: HOOK,
        screenDir,
        plan,
        arm: "policy",
        harness,
      });
      if (harness === "claude") {
        nodeDir = join(screenDir, "payload/node");
        const own = inspectNodeBinary(process.execPath);
        if (!own) throw new Error("this test needs a Linux node");
        await packNodeRuntimes(nodeDir, { [own.libc]: own });
      }
    }
  }, 120_000);

  it("packs the host's node once, with both hashes", async () => {
    const index = JSON.parse(readFileSync(join(nodeDir, "runtimes.json"), "utf8"));
    const [entry] = index.runtimes;
    expect(entry.sha256).toBe(sha256(readFileSync(process.execPath)));
    expect(entry.gzSha256).toBe(sha256(readFileSync(join(nodeDir, entry.file))));
    const own = inspectNodeBinary(process.execPath);
    if (!own) throw new Error("no node");
    const before = readFileSync(join(nodeDir, entry.file));
    await packNodeRuntimes(nodeDir, { [own.libc]: own });
    expect(readFileSync(join(nodeDir, entry.file)).equals(before)).toBe(true);
  });

  for (const harness of ["claude", "codex"] as const) {
    it(`${harness}: the image's node runs the uploaded hook; hashes verified in the sandbox`, () => {
      const r = drive({ harness, kwargs: kwargs(harness), node: "image" });
      expect(r.error).toBeUndefined();
      expect(r.stage).toBe("run");
      // Harbor's own agent was installed (setup ran the parent's install first)
      expect(r.client).toBe(harness === "claude" ? "claude-code" : "codex");
      // the adapter's kwargs are consumed, not passed on to Harbor's agent
      expect(r.ignoredKwargs).toEqual([]);
      const d = r.delivery?.payload;
      if (!d) throw new Error("nothing delivered");
      const target =
        harness === "claude"
          ? "/etc/claude-code/managed-settings.json"
          : "/etc/codex/requirements.toml";
      expect(d.settings).toBe(target);
      const manifest = JSON.parse(
        readFileSync(join(payloads[harness]?.dir ?? "", "payload.json"), "utf8"),
      );
      // every manifest file checked inside, and the settings where the client reads them
      expect(Object.keys(d.verified).sort()).toEqual(
        [...Object.keys(manifest.files).map((f) => `/fire/payload/${f}`), target].sort(),
      );
      expect(d.node).toMatchObject({ source: "image", libc: "glibc" });
      expect(r.uploadedNode).toBe(false);
      // the client called the hook from the managed settings: it logged every event and the
      // stop rule answered (instruct = block the stop with the read-back message)
      expect(r.hookLog?.map((l) => l.event)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
      expect(r.hookLog?.every((l) => !l.error)).toBe(true);
      expect(JSON.stringify(r.answers?.[2])).toContain("open the report you wrote");
      // proof it ran in THIS sandbox: the id only the sandbox holds, once per hook call
      expect(r.sandboxLog?.length).toBe(3);
      expect(new Set(r.sandboxLog?.map((l) => l.sandbox))).toEqual(new Set([d.sandbox]));
      expect(r.modes?.[target]).toBe("0o644");
    });
  }

  it("claude, no node in the image, a non-root agent user: uploads a verified node", () => {
    const r = drive({ harness: "claude", kwargs: kwargs("claude"), node: "none", user: "agent" });
    expect(r.error).toBeUndefined();
    const d = r.delivery?.payload;
    expect(d?.node).toMatchObject({ source: "uploaded", libc: "glibc", imageNode: "none" });
    expect(d?.node.version).toBe(process.versions.node);
    expect(d?.verified["/fire/node/glibc/node"]).toBe(sha256(readFileSync(process.execPath)));
    // uploads carry no mode bits: the adapter made the node executable and the payload readable
    expect(r.modes?.["/fire/node/glibc/node"]).toBe("0o755");
    expect(r.modes?.["/fire/payload/fire-hook.sh"]).toBe("0o644");
    expect(r.hookLog?.map((l) => l.event)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
    expect(JSON.stringify(r.answers?.[2])).toContain("open the report you wrote");
    expect(r.sandboxLog?.length).toBe(3);
  });

  it("codex, a node too old for the hook: uploads one and the hook runs on it", () => {
    const r = drive({ harness: "codex", kwargs: kwargs("codex"), node: "old" });
    expect(r.error).toBeUndefined();
    expect(r.delivery?.payload?.node).toMatchObject({ source: "uploaded", imageNode: "12.22.9" });
    expect(r.hookLog?.map((l) => l.event)).toEqual(["UserPromptSubmit", "PreToolUse", "Stop"]);
    expect(r.hookLog?.every((l) => !l.error)).toBe(true);
  });

  it("baseline (no payload): Harbor's agent alone, nothing delivered, no hook", () => {
    const r = drive({ harness: "claude", kwargs: {}, node: "image" });
    expect(r.stage).toBe("run");
    expect(r.client).toBe("claude-code");
    expect(r.delivery).toMatchObject({ harness: "claude", payload: null });
    expect(r.uploads).toEqual([]);
    expect(r.hookLog).toEqual([]);
    expect(r.sandboxLog).toEqual([]);
  });

  it("refuses on the host: a wrong pin, a changed file, a payload for the other client", () => {
    const k = kwargs("claude");
    const wrongPin = drive({
      harness: "claude",
      kwargs: { ...k, fire_payload_sha256: "0".repeat(64) },
    });
    expect(wrongPin.stage).toBe("init");
    expect(wrongPin.error).toMatch(/payload\.json has sha256 [0-9a-f]{64}, the run pinned 0{64}/);
    const other = drive({ harness: "codex", kwargs: k });
    expect(other).toMatchObject({ stage: "init" });
    expect(other.error).toContain("is for claude, this agent is codex");
    const portfolio = join(k.fire_payload ?? "", "portfolio.json");
    const text = readFileSync(portfolio, "utf8");
    writeFileSync(portfolio, text.replace("open the report", "ignore the report"));
    try {
      const changed = drive({ harness: "claude", kwargs: k });
      expect(changed.stage).toBe("init");
      expect(changed.error).toContain("portfolio.json fails its sha256 check");
    } finally {
      writeFileSync(portfolio, text);
    }
  });

  it("refuses in the sandbox: a corrupted upload, no node and none to upload", () => {
    const corrupt = drive({
      harness: "claude",
      kwargs: kwargs("claude"),
      corrupt: "fire-hook.mjs",
    });
    expect(corrupt.stage).toBe("setup");
    expect(corrupt.error).toMatch(
      /\/fire\/payload\/fire-hook\.mjs in the sandbox has sha256 [0-9a-f]{64}, expected/,
    );
    const noNode = drive({ harness: "claude", kwargs: kwargs("claude", false), node: "none" });
    expect(noNode.stage).toBe("setup");
    expect(noNode.error).toContain("has no node >= 20 (found: none)");
    expect(noNode.error).toContain("FIRE_PAYLOAD_NODE_GLIBC");
  });
});
