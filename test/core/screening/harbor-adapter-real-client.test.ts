import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inspectNodeBinary } from "../../../src/core/deploy/node-runtime.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { readIntactPlan, writePlan } from "../../../src/core/screening/plan/plan-file.js";
import { packNodeRuntimes, verifyPayload } from "../../../src/core/screening/run/adapter.js";
import { type ArmPayload, writeArmPayload } from "../../../src/core/screening/run/payload.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/**
 * The REAL clients (Claude Code 2.1.332, Codex 0.171.0) inside the stand-in Harbor sandbox,
 * after fire's adapter set it up: the adapter uploads the arm's payload and writes the managed
 * settings (test/helpers/harbor-sandbox/, run_adapter.py), then the client is started the way
 * Harbor's own agent starts it (real_client.py) against the real-client rig's scripted model on
 * 127.0.0.1, in a loopback-only network namespace. Nothing else installs a hook, so a hook
 * log line written inside the sandbox, carrying the id only that sandbox holds, proves the
 * uploaded settings made the client call fire's hook; the model then seeing the stop rule's
 * message proves the client acted on the hook's answer.
 *
 * Needs root, unshare, python3 >= 3.11, the rig (FIRE_RC_RIG, else ../shared/realclients) and
 * the pinned clients (FIRE_RC_CLIENTS, a folder with node_modules/.bin/{claude,codex}, else
 * ../rc-clients); skips with a printed reason otherwise.
 */

const PINNED = { claude: "2.1.332", codex: "0.171.0" } as const;
const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");
const HOOK = join(REPO_ROOT, "dist/runtime/hook.standalone.mjs");
const DRIVER = join(REPO_ROOT, "test/helpers/harbor-sandbox/run_adapter.py");
const RIG = resolve(process.env.FIRE_RC_RIG ?? join(REPO_ROOT, "../shared/realclients"));
const CLIENTS = resolve(process.env.FIRE_RC_CLIENTS ?? join(REPO_ROOT, "../rc-clients"));
const TASK = readFileSync(
  join(REPO_ROOT, "test/fixtures/screens/dataset/report-sales/instruction.md"),
  "utf8",
).trim();
const STOP_MESSAGE = "open the report you wrote";

function missingFor(client: "claude" | "codex"): string | undefined {
  if (process.getuid?.() !== 0) return "not root";
  if (process.platform !== "linux") return "not Linux";
  if (spawnSync("python3", ["-c", "import tomllib"]).status !== 0) return "no python3 >= 3.11";
  if (spawnSync("unshare", ["-n", "-p", "-f", "--mount-proc", "true"]).status !== 0)
    return "unshare (net, pid, mount) is not permitted";
  if (spawnSync("sh", ["-c", "command -v nsenter && command -v chroot && command -v ip"]).status)
    return "no nsenter/chroot/ip";
  if (!existsSync(join(RIG, "fake-anthropic.mjs"))) return `no real-client rig at ${RIG}`;
  const bin = join(CLIENTS, "node_modules/.bin", client);
  if (!existsSync(bin)) return `no ${bin} (set FIRE_RC_CLIENTS)`;
  const v = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (!`${v.stdout}`.includes(PINNED[client]))
    return `${bin} is "${`${v.stdout}`.trim()}", not the pinned ${PINNED[client]}`;
  return undefined;
}
const missing = { claude: missingFor("claude"), codex: missingFor("codex") };
for (const [client, why] of Object.entries(missing))
  if (why) process.stderr.write(`skipped: the real ${client} run through the adapter (${why})\n`);

interface RealRun {
  stage: string;
  error?: string;
  clientExit?: number;
  clientTail?: string;
  requests?: { turn?: number; expect_ok?: boolean; expect?: string }[];
  delivery?: { payload: null | { sandbox: string; settings: string; node: { source: string } } };
  hookLog?: { event?: string; error?: string; arm?: string }[];
  sandboxLog?: { sandbox: string }[];
}

/** The scripted model: write the report, stop, and (once told to) read it back. */
function writeScript(dir: string): string {
  const file = join(dir, "script.json");
  writeFileSync(
    file,
    JSON.stringify({
      prompt: TASK,
      turns: [
        { text: "Writing the report.", bash: "printf 'north 10\\n' > report.md && echo written" },
        { text: "The report is written.", expect: "written" },
        { text: "Reading it back.", expect: STOP_MESSAGE, bash: "cat report.md" },
        { text: "Checked: the report has the totals.", expect: "north 10" },
      ],
      final_text: "Done.",
    }),
  );
  return file;
}

async function payloadFor(
  harness: "claude" | "codex",
): Promise<{ payload: ArmPayload; node: string }> {
  const ws = mkdtempSync(join(tmpdir(), "fire-adapter-rc-"));
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
  const screenDir = join(ws, "screens/cloud");
  const plan = await readIntactPlan(ws, "cloud");
  const payload = writeArmPayload({ hookFile: HOOK, screenDir, plan, arm: "policy", harness });
  if (!payload) throw new Error("no payload");
  const node = join(screenDir, "payload/node");
  const own = inspectNodeBinary(process.execPath);
  if (!own) throw new Error("this test needs a Linux node");
  await packNodeRuntimes(node, { [own.libc]: own });
  return { payload, node };
}

async function runReal(
  harness: "claude" | "codex",
  opts: { node: "image" | "none"; user?: string },
): Promise<RealRun> {
  const { payload, node } = await payloadFor(harness);
  const tmp = mkdtempSync(join(tmpdir(), `fire-rc-${harness}-`));
  const cfg = {
    harness,
    adapterDir: join(REPO_ROOT, "harbor"),
    logsDir: join(tmp, "agent"),
    downloadTo: join(tmp, "downloaded"),
    node: opts.node,
    ...(opts.user ? { user: opts.user } : {}),
    kwargs: {
      fire_payload: payload.dir,
      fire_payload_sha256: verifyPayload(payload.dir),
      fire_node: node,
    },
    realClient: { rig: RIG, clients: CLIENTS, script: writeScript(tmp), out: join(tmp, "rc") },
  };
  // a loopback-only network namespace and a PID namespace: nothing leaves 127.0.0.1 and
  // every process the client starts ends with the run
  const out = execFileSync(
    "unshare",
    [
      "-n",
      "-p",
      "-f",
      "--mount-proc",
      "sh",
      "-c",
      'ip link set lo up && exec python3 "$0" "$1"',
      DRIVER,
      JSON.stringify(cfg),
    ],
    { encoding: "utf8", timeout: 240_000 },
  );
  return JSON.parse(out) as RealRun;
}

const cases = [
  // Claude: no node in the image and a non-root agent user, so the hook runs on the node the
  // adapter uploaded; Codex: the image's node, as root (Harbor's default user).
  { harness: "claude", node: "none", user: "agent" },
  { harness: "codex", node: "image" },
] as const;

for (const c of cases) {
  describe.skipIf(missing[c.harness])(`the real ${c.harness} client through the adapter`, () => {
    let r: RealRun;
    beforeAll(async () => {
      execFileSync(process.execPath, [join(REPO_ROOT, "dist/build/bundle.js")]);
      r = await runReal(c.harness, { node: c.node, ...("user" in c ? { user: c.user } : {}) });
    }, 300_000);

    it("the adapter delivered, then the client called fire's hook inside the sandbox", () => {
      expect(r.error, r.clientTail).toBeUndefined();
      expect(r.stage).toBe("run");
      const d = r.delivery?.payload;
      if (!d) throw new Error("nothing delivered");
      expect(d.node.source).toBe(c.node === "none" ? "uploaded" : "image");
      const events = (r.hookLog ?? []).map((l) => l.event);
      expect(events, r.clientTail).toContain("UserPromptSubmit");
      expect(events).toContain("PreToolUse");
      expect(events).toContain("Stop");
      expect((r.hookLog ?? []).filter((l) => l.error)).toEqual([]);
      // every launcher call logged the id the adapter wrote only inside this sandbox
      expect(r.sandboxLog?.length).toBeGreaterThan(0);
      expect(new Set(r.sandboxLog?.map((l) => l.sandbox))).toEqual(new Set([d.sandbox]));
    });

    it("the client acted on the hook's answer: the stop rule's message reached the model", () => {
      const told = (r.requests ?? []).find((q) => q.expect === STOP_MESSAGE);
      expect(told?.expect_ok, r.clientTail).toBe(true);
      // Codex names the hook's source in what it sends: the managed requirements file
      if (c.harness === "codex")
        expect(JSON.stringify(told)).toContain(":/etc/codex/requirements.toml");
      expect(r.clientExit, r.clientTail).toBe(0);
    });
  });
}
