import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { NotFoundError } from "../errors.js";
import { loadPolicySource } from "../freeze/policy-source.js";
import { linearCandidate } from "../policy/linear-candidate.js";
import { sha256Hex } from "../screening/canonical.js";
import { checkStandaloneHook, STANDALONE_HOOK } from "../screening/run/payload.js";
import { shellQuote } from "../shell-quote.js";
import { hookArgWords, PAYLOAD_HOOK_OPTIONS } from "./hook-options.js";
import {
  PAYLOAD_FORMAT,
  PAYLOAD_HOOK,
  PAYLOAD_MANIFEST,
  PAYLOAD_PORTFOLIO,
  type PayloadManifest,
  type PayloadPortfolio,
} from "./payload-format.js";
import { type Harness, markCommand, withFire } from "./settings.js";
import { portfolioTools, toolMatcher } from "./tool-filter.js";

/**
 * fire's hook as a PLUGIN of the client (`fire hook install --plugin`), beside the settings
 * install: a local marketplace folder holding one plugin, `fire-hook`, whose `hooks/hooks.json`
 * runs the self-contained hook it carries. Nothing in it names this machine: the command is
 *
 *   node "${CLAUDE_PLUGIN_ROOT}/payload/fire-hook.mjs" --sha256 <portfolio sha256>
 *        --log "${CLAUDE_PLUGIN_DATA}/hook-log.jsonl" --state-dir "${CLAUDE_PLUGIN_DATA}/state"
 *
 * and the plugin holds the standalone hook (node built-ins only) and the portfolio
 * (validated here, patterns in their linear form, sha256 pinned in the command), as a
 * screen's payload does. Checked with the real clients (Claude Code 2.1.332, Codex 0.171.0):
 * both read `.claude-plugin/marketplace.json` and `.claude-plugin/plugin.json` (Codex also
 * its own `.codex-plugin/`), both run `hooks/hooks.json` and set CLAUDE_PLUGIN_ROOT and
 * CLAUDE_PLUGIN_DATA for its commands (Claude substitutes them in the text; Codex sets them
 * in the environment, which the shell expands), both run a plugin's hooks with the session's
 * folder as working directory. Claude reads a local marketplace's plugin in place; Codex
 * copies it into `$CODEX_HOME/plugins/cache/` when it is added. The data folder is
 * `<config dir>/plugins/data/fire-hook-<marketplace>/` in both.
 *
 * The plugin is per harness (the events and `onFailure` differ), so the folder is too.
 */

export const PLUGIN_NAME = "fire-hook";
/** The marketplace of one harness's plugin (so both can be installed side by side). */
export const marketplaceName = (harness: Harness): string => `fire-local-${harness}`;
export const pluginId = (harness: Harness): string => `${PLUGIN_NAME}@${marketplaceName(harness)}`;
/** Where the plugin keeps the hook, inside the plugin folder. */
const PAYLOAD_DIR = "payload";
/** The hook log inside the plugin's data folder. */
export const PLUGIN_LOG = "hook-log.jsonl";

export interface PluginRequest {
  harness: Harness;
  /** Candidate file or folder, or a frozen portfolio: copied into the plugin. */
  portfolio: string;
  /** The marketplace folder written (replaced when it holds an older fire plugin). */
  dir: string;
  failClosed?: boolean;
  observe?: boolean;
  /** The standalone hook to bundle (default: the one built beside this fire). */
  hookFile?: string;
}

export interface WrittenPlugin {
  /** The marketplace folder. */
  dir: string;
  /** The plugin folder inside it. */
  pluginDir: string;
  /** The hook command in hooks/hooks.json. */
  command: string;
  /** sha256 of the bundled portfolio (pinned in the command). */
  portfolioSha: string;
  policies: number;
  /** The tool events' matchers written (absent: every tool). */
  matchers?: Record<string, string | null>;
}

/** The hook command of a plugin whose portfolio has this sha256. */
export function pluginCommand(
  sha: string,
  opts: { failClosed?: boolean; observe?: boolean },
): string {
  // the variables stay unquoted-by-fire inside double quotes: Claude replaces them in the
  // text, Codex leaves them to the shell; either way the path is one word
  const root = `\${CLAUDE_PLUGIN_ROOT}`;
  const data = `\${CLAUDE_PLUGIN_DATA}`;
  const expanded = new Set([
    `${root}/${PAYLOAD_DIR}/${PAYLOAD_HOOK}`,
    `${data}/${PLUGIN_LOG}`,
    `${data}/state`,
  ]);
  // the words as every fire hook command is made (hook-options.ts), the paths in the
  // plugin's variables double-quoted for the shell to expand, every other word quoted by fire
  const words = [
    "node",
    `${root}/${PAYLOAD_DIR}/${PAYLOAD_HOOK}`,
    ...hookArgWords(PAYLOAD_HOOK_OPTIONS, {
      sha256: sha,
      observe: opts.observe,
      "fail-closed": opts.failClosed,
      log: `${data}/${PLUGIN_LOG}`,
      "state-dir": `${data}/state`,
    }),
  ];
  return markCommand(words.map((w) => (expanded.has(w) ? `"${w}"` : shellQuote(w))).join(" "));
}

/** Writes the plugin's marketplace folder. Throws when the portfolio does not load. */
export function writePlugin(req: PluginRequest): WrittenPlugin {
  const hookFile = req.hookFile ?? STANDALONE_HOOK;
  checkStandaloneHook(hookFile);
  const { policies, errors } = loadPolicySource(req.portfolio);
  if (errors.length > 0) throw errors[0];
  if (policies.length === 0)
    throw new NotFoundError(`no candidate policies in ${req.portfolio}`, "portfolio");
  const dir = resolve(req.dir);
  const pluginDir = join(dir, PLUGIN_NAME);
  rmSync(dir, { recursive: true, force: true });
  for (const d of [join(dir, ".claude-plugin"), join(pluginDir, ".claude-plugin")])
    mkdirSync(d, { recursive: true });
  mkdirSync(join(pluginDir, "hooks"), { recursive: true });
  mkdirSync(join(pluginDir, PAYLOAD_DIR), { recursive: true });

  const portfolio: PayloadPortfolio = {
    format: PAYLOAD_FORMAT,
    arm: basename(resolve(req.portfolio)),
    policies: policies.map((p) => ({
      file: basename(p.file ?? p.key),
      candidate: linearCandidate(p.candidate),
    })),
  };
  const portfolioText = `${JSON.stringify(portfolio)}\n`;
  const sha = sha256Hex(portfolioText);
  const payload = join(pluginDir, PAYLOAD_DIR);
  writeFileSync(join(payload, PAYLOAD_PORTFOLIO), portfolioText);
  copyFileSync(hookFile, join(payload, PAYLOAD_HOOK));
  const manifest: PayloadManifest = {
    format: PAYLOAD_FORMAT,
    screen: "plugin",
    arm: portfolio.arm,
    harness: req.harness,
    files: Object.fromEntries(
      [PAYLOAD_PORTFOLIO, PAYLOAD_HOOK].map((f) => [f, sha256Hex(readFileSync(join(payload, f)))]),
    ),
  };
  writeFileSync(join(payload, PAYLOAD_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

  // the portfolio in the plugin cannot change under the hook (its hash is pinned), so the
  // tools it can act on are known: other tools' events need not start the hook
  const need = portfolioTools(policies.map((p) => p.candidate));
  const pre = toolMatcher(need.tool, req.harness) ?? null;
  const post = toolMatcher(need.tool_result, req.harness) ?? null;
  const matchers =
    pre === "" && post === ""
      ? undefined
      : { PreToolUse: pre, PostToolUse: post, PostToolUseFailure: post };
  const command = pluginCommand(sha, req);
  const hooks = withFire({}, command, req.harness, {
    blockOnFailure: req.failClosed,
    ...(matchers ? { matchers } : {}),
  });
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  writeFileSync(join(pluginDir, "hooks", "hooks.json"), json(hooks));
  // version: the portfolio's, so a client that caches by version (Codex) takes a new one
  const version = `1.0.0-${sha.slice(0, 12)}`;
  const description = `fire's runtime policies (${policies.length}) as a ${req.harness === "claude" ? "Claude Code" : "Codex"} hook`;
  writeFileSync(
    join(pluginDir, ".claude-plugin", "plugin.json"),
    json({ name: PLUGIN_NAME, version, description, license: "MIT", author: { name: "fire" } }),
  );
  writeFileSync(
    join(dir, ".claude-plugin", "marketplace.json"),
    json({
      name: marketplaceName(req.harness),
      owner: { name: "fire" },
      description:
        "written by `fire hook install --plugin`; removed by `fire hook uninstall --plugin`",
      plugins: [{ name: PLUGIN_NAME, source: `./${PLUGIN_NAME}`, description, version }],
    }),
  );
  writeFileSync(
    join(pluginDir, "README.md"),
    `# ${PLUGIN_NAME}\n\nWritten by \`fire hook install --plugin\`: fire's frozen runtime policies (${policies.length}) as a hook. The hook (payload/fire-hook.mjs, node built-ins only) checks the portfolio's sha256 on every event and logs each decision to the plugin's data folder (${PLUGIN_LOG}); \`fire hook report <that folder>\` reads it. Needs \`node\` (>= 20.11) on PATH.\n`,
  );
  return {
    dir,
    pluginDir,
    command,
    portfolioSha: sha,
    policies: policies.length,
    ...(matchers ? { matchers } : {}),
  };
}
