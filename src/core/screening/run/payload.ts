import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify as toToml } from "smol-toml";
import { type BundleManifest, isFresh } from "../../deploy/bundle-manifest.js";
import { hookArgWords, PAYLOAD_HOOK_OPTIONS } from "../../deploy/hook-options.js";
import type { Libc, NodeBinary } from "../../deploy/node-runtime.js";
import {
  PAYLOAD_FORMAT,
  PAYLOAD_HOOK,
  PAYLOAD_MANIFEST,
  PAYLOAD_PORTFOLIO,
  type PayloadManifest,
  type PayloadPortfolio,
} from "../../deploy/payload-format.js";
import { launcherScript, PAYLOAD_LAUNCHER, runtimeMounts } from "../../deploy/payload-launcher.js";
import { markCommand, withFire } from "../../deploy/settings.js";
import type { ArmName } from "../../model/arm.js";
import { linearCandidate } from "../../policy/linear-candidate.js";
import { loadPolicies } from "../../policy/load.js";
import { shellQuote } from "../../shell-quote.js";
import { sha256Hex } from "../canonical.js";
import type { ScreenPlan } from "../plan/schema.js";

/**
 * Per-arm hook payloads for agents that run inside Harbor's containers.
 *
 * `screens/<name>/payload/<arm>/` holds everything the hook needs, with nothing from this
 * machine's fire install: `fire-hook.mjs` (the self-contained hook bundle, node built-ins
 * only), `portfolio.json` (the arm's candidates, validated and safety-checked here, sha256
 * pinned), `payload.json` (hashes of both), `claude-settings.json` / `codex-hooks.json`
 * (the harness settings whose four hooks run `node <mount>/fire-hook.mjs --sha256 …`).
 *
 * Delivery is Harbor's `--mounts` (a JSON list of Docker Compose bind volumes): the folder
 * read-only at `/fire/payload`, and the settings file where the agent reads it, in each
 * client's MANAGED layer, which runs without any trust step or bypass flag — Claude Code's
 * managed settings `/etc/claude-code/managed-settings.json` (read whatever CLAUDE_CONFIG_DIR
 * Harbor sets), Codex's managed requirements `/etc/codex/requirements.toml` (`[hooks]`; a
 * user-layer `$CODEX_HOME/hooks.json` would run only with persisted hook trust, which
 * Harbor's codex agent does not set up, nor pass `--dangerously-bypass-hook-trust`). The hook logs to `/logs/agent/fire-hook-log.jsonl`: the
 * trial's `agent/` folder that Harbor mounts there (and downloads on other providers).
 */
export const CONTAINER_PAYLOAD = "/fire/payload";
export const CONTAINER_LOG = "/logs/agent/fire-hook-log.jsonl";
export const CONTAINER_STATE = "/logs/agent/fire-state";
export const CLAUDE_SETTINGS = "claude-settings.json";
export const CODEX_HOOKS = "codex-requirements.toml";
/** Where each harness reads the settings file inside the container. */
export const SETTINGS_TARGET = {
  claude: "/etc/claude-code/managed-settings.json",
  codex: "/etc/codex/requirements.toml",
} as const;

export type PayloadHarness = keyof typeof SETTINGS_TARGET;

/** One Docker Compose bind volume, as Harbor's `--mounts` takes them (ServiceVolumeConfig). */
export interface BindMount {
  type: "bind";
  source: string;
  target: string;
  read_only: true;
}

export interface ArmPayload {
  dir: string;
  manifest: PayloadManifest;
  /** The hook command inside the container (the one in the settings files). */
  command: string;
  mounts: BindMount[];
}

/** The standalone hook next to this build: dist/runtime/hook.standalone.mjs. */
export const STANDALONE_HOOK = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../runtime/hook.standalone.mjs",
);

/** Throws when the standalone hook is missing or older than the modules it was built from. */
export function checkStandaloneHook(file = STANDALONE_HOOK): void {
  const manifestFile = file.replace(/\.mjs$/, ".json");
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as BundleManifest;
  } catch {
    throw new Error(`the standalone hook ${file} is missing: run \`npm run build\``);
  }
  if (!existsSync(file) || !isFresh(manifest, resolve(dirname(file), "..")))
    throw new Error(
      `the standalone hook ${file} is older than the compiled modules: run \`npm run build\``,
    );
}

/**
 * Rebuilds the standalone hook (the build's bundler, src/build/bundle-standalone.ts); resolves
 * to undefined when the bundler is not installed. Supplied by the caller: core does not
 * import build tooling.
 */
export type RebuildHook = () => Promise<unknown>;

/**
 * Makes sure the standalone hook is there and current before a run: when it is missing or
 * stale (e.g. a bare `tsc` after a source change) it is rebuilt with `rebuild` if given and
 * the bundler is installed (a development checkout); otherwise the check's error stands.
 */
export async function ensureStandaloneHook(
  file = STANDALONE_HOOK,
  rebuild?: RebuildHook,
): Promise<void> {
  try {
    checkStandaloneHook(file);
  } catch (err) {
    if (file !== STANDALONE_HOOK || !rebuild) throw err;
    if (!(await rebuild().catch(() => undefined))) throw err;
    checkStandaloneHook(file);
  }
}

/**
 * Writes an arm's payload (replacing an older one); undefined for an arm without candidate
 * files (baseline: no hook). Throws when the arm's candidates do not load.
 */
export function writeArmPayload(opts: {
  screenDir: string;
  plan: ScreenPlan;
  arm: ArmName;
  harness: PayloadHarness;
  hookFile?: string;
  /** Linux node runtimes mounted beside the hook (core/deploy/node-runtime.ts). */
  runtimes?: Partial<Record<Libc, NodeBinary>>;
}): ArmPayload | undefined {
  const spec = opts.plan.arms.find((a) => a.name === opts.arm);
  if (!spec || spec.files.length === 0) return undefined;
  const hookFile = opts.hookFile ?? STANDALONE_HOOK;
  checkStandaloneHook(hookFile);
  const { policies, errors } = loadPolicies([join(opts.screenDir, "arms", opts.arm)]);
  if (errors.length > 0) throw new Error(`arm ${opts.arm}: ${errors[0]?.format()}`);
  if (policies.length === 0) throw new Error(`arm ${opts.arm}: no candidate policies`);
  const dir = join(opts.screenDir, "payload", opts.arm);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const portfolio: PayloadPortfolio = {
    format: PAYLOAD_FORMAT,
    arm: opts.arm,
    policies: policies.map((p) => ({
      file: basename(p.file ?? p.key),
      // patterns in their linear form: the payload hook compiles them as admitted
      candidate: linearCandidate(p.candidate),
    })),
  };
  const portfolioText = `${JSON.stringify(portfolio)}\n`;
  writeFileSync(join(dir, PAYLOAD_PORTFOLIO), portfolioText);
  copyFileSync(hookFile, join(dir, PAYLOAD_HOOK));
  writeFileSync(
    join(dir, PAYLOAD_LAUNCHER),
    launcherScript({
      payloadDir: CONTAINER_PAYLOAD,
      hook: PAYLOAD_HOOK,
      log: CONTAINER_LOG,
      harness: opts.harness,
    }),
  );
  const portfolioSha = sha256Hex(portfolioText);
  const command = [
    "sh",
    `${CONTAINER_PAYLOAD}/${PAYLOAD_LAUNCHER}`,
    ...hookArgWords(PAYLOAD_HOOK_OPTIONS, {
      payload: CONTAINER_PAYLOAD,
      sha256: portfolioSha,
      log: CONTAINER_LOG,
      "state-dir": CONTAINER_STATE,
    }),
  ]
    .map(shellQuote)
    .join(" ");
  const marked = markCommand(command);
  writeFileSync(
    join(dir, CLAUDE_SETTINGS),
    `${JSON.stringify(withFire({}, marked, "claude"), null, 2)}\n`,
  );
  writeFileSync(
    join(dir, CODEX_HOOKS),
    `# fire hook payload: Codex managed hooks (requirements.toml [hooks])\n${toToml(withFire({}, marked, "codex"))}\n`,
  );
  // every file but the manifest itself, hashed: the Harbor adapter checks each one inside
  // the sandbox, the settings file also where the client reads it
  const manifest: PayloadManifest = {
    format: PAYLOAD_FORMAT,
    screen: opts.plan.name,
    arm: opts.arm,
    harness: opts.harness,
    files: Object.fromEntries(
      [PAYLOAD_PORTFOLIO, PAYLOAD_HOOK, PAYLOAD_LAUNCHER, CLAUDE_SETTINGS, CODEX_HOOKS].map((f) => [
        f,
        sha256Hex(readFileSync(join(dir, f))),
      ]),
    ),
  };
  writeFileSync(join(dir, PAYLOAD_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  const settingsFile = opts.harness === "claude" ? CLAUDE_SETTINGS : CODEX_HOOKS;
  const mounts: BindMount[] = [
    { type: "bind", source: dir, target: CONTAINER_PAYLOAD, read_only: true },
    {
      type: "bind",
      source: join(dir, settingsFile),
      target: SETTINGS_TARGET[opts.harness],
      read_only: true,
    },
    ...runtimeMounts(opts.runtimes ?? {}),
  ];
  return { dir, manifest, command: marked, mounts };
}

/** Harbor flags that deliver a payload (`--mounts '<json>'`); empty without one. */
export function harborHookFlags(payload: ArmPayload | undefined): string {
  return payload ? `--mounts ${shellQuote(JSON.stringify(payload.mounts))}` : "";
}
