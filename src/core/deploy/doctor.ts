import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { defaultPortfolioDir } from "../freeze/default.js";
import { loadFrozenPortfolio } from "../freeze/verify.js";
import { loadPolicies } from "../policy/load.js";
import { shellQuote } from "../shell-quote.js";
import { workspacePaths } from "../workspace/paths.js";
import { readCodexTrust, trustEntries } from "./codex-trust.js";
import { HOOK_OPTIONS, readHookArgs } from "./hook-options.js";
import { codexConfigToml, type HookTarget } from "./install.js";
import { pluginFindings, pluginRecorded } from "./plugin-doctor.js";
import { type Harness, isFireCommand, readSettings, settingsPath, shellWords } from "./settings.js";

/**
 * `fire hook doctor --harness H`: whether the hook fire installed will run in the real
 * client, and if not, why — one line per problem (trust, feature flag, missing `node`, the
 * portfolio it evaluates).
 */

export interface DoctorFinding {
  /** `note`: worth knowing, not known to stop the hook (the report stays ok). */
  level: "ok" | "problem" | "note";
  text: string;
  /**
   * The install request's field the finding's advice is about (`portfolio`), if one: the text
   * names it in plain words, a front end may name its own control for it (the CLI its flag).
   */
  field?: string;
}

/** Where the client's machine-wide files are (tests point these at a temporary folder). */
export interface DoctorPlaces {
  /** Claude Code's managed settings folder (Linux: /etc/claude-code). */
  claudeManagedDir?: string;
}

/** Claude Code 2.1.332's managed settings folder on Linux (macOS and Windows have others). */
export const CLAUDE_MANAGED_DIR = "/etc/claude-code";

export interface DoctorReport {
  harness: Harness;
  file: string;
  findings: DoctorFinding[];
  /** True when no problem was found. */
  ok: boolean;
}

const problem = (text: string, field?: string): DoctorFinding =>
  field === undefined ? { level: "problem", text } : { level: "problem", text, field };
const ok = (text: string): DoctorFinding => ({ level: "ok", text });
const note = (text: string): DoctorFinding => ({ level: "note", text });

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Flags of an installed `fire hook` command line. */
function hookFlags(words: string[]): Record<string, string> {
  const args = words.slice(3);
  const mark = args.findIndex((w) => w.startsWith("#"));
  const { values } = readHookArgs(mark === -1 ? args : args.slice(0, mark), HOOK_OPTIONS);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Checks what an installed command runs: node, fire, and the portfolio it evaluates. */
function commandFindings(command: string, env: NodeJS.ProcessEnv): DoctorFinding[] {
  const words = shellWords(command);
  if (!words || words.length < 3) return [problem(`cannot read the hook command: ${command}`)];
  const [node, cli] = words as [string, string];
  const out: DoctorFinding[] = [];
  if (!isExecutable(node))
    out.push(
      problem(
        `missing node: the hook runs ${node}, which is not an executable here (reinstall with the node you run fire with)`,
      ),
    );
  if (!existsSync(cli))
    out.push(problem(`missing fire: the hook runs ${cli}, which does not exist (reinstall)`));
  else {
    const resident = residentFinding(cli, env);
    if (resident) out.push(resident);
  }
  const flags = hookFlags(words);
  const workspace = flags.workspace ? resolve(flags.workspace) : undefined;
  if (flags.portfolio) out.push(...portfolioFindings(flags.portfolio, workspace));
  else if (!workspace)
    out.push(
      problem(
        "no workspace: the hook takes its portfolio from whatever folder the client runs it in (reinstall with -w DIR)",
      ),
    );
  else {
    const dir = defaultPortfolioDir(workspace);
    if (!dir)
      out.push(
        problem(
          `nothing frozen: no portfolio under ${workspacePaths(workspace).portfolios}/, so the hook stays silent (run \`fire freeze\`)`,
        ),
      );
    else out.push(...portfolioFindings(dir, workspace));
  }
  return out;
}

/** What the installed fire's resident-evaluator client offers (runtime/resident-client.cts). */
interface ResidentClient {
  residentDir(runtimeDir: string, env: NodeJS.ProcessEnv): string | undefined;
  running(pid: number): boolean;
}

/**
 * Whether the installed fire's hook calls reach a resident evaluator (a warm process; without
 * one every event starts the hook cold), as seen with this shell's environment. The client is
 * read from the installed fire itself (its build may differ from the one running doctor); an
 * older fire without one gives no line.
 */
function residentFinding(cli: string, env: NodeJS.ProcessEnv): DoctorFinding | undefined {
  const runtimeDir = resolve(dirname(cli), "..", "runtime");
  const file = join(runtimeDir, "resident-client.cjs");
  if (!existsSync(file)) return undefined;
  let client: ResidentClient;
  try {
    client = createRequire(import.meta.url)(file) as ResidentClient;
  } catch {
    return undefined;
  }
  if (env.FIRE_HOOK_RESIDENT === "0")
    return note("resident evaluator off (FIRE_HOOK_RESIDENT=0): every event starts the hook cold");
  const dir = client.residentDir(runtimeDir, env);
  if (!dir)
    return note(
      "resident evaluator unavailable: its per-user folder (fire-hook-<uid> under $XDG_RUNTIME_DIR, /dev/shm or the temp folder) is not a folder of this user's alone, so every event starts the hook cold",
    );
  let pid = 0;
  try {
    pid = Number(readFileSync(join(dir, "pid"), "utf8"));
  } catch {
    // none yet
  }
  return client.running(pid)
    ? ok(`resident evaluator running (pid ${pid}, ${dir})`)
    : note(`resident evaluator not running: the next hook call starts one (${dir})`);
}

function portfolioFindings(portfolio: string, workspace: string | undefined): DoctorFinding[] {
  if (!existsSync(portfolio))
    return [problem(`missing portfolio: ${portfolio} does not exist, so the hook stays silent`)];
  if (existsSync(join(portfolio, "manifest.json"))) {
    try {
      const { policies } = loadFrozenPortfolio(portfolio);
      const newest = workspace ? defaultPortfolioDir(workspace) : undefined;
      const out = [ok(`portfolio ${portfolio}: ${policies.length} policies, hashes verified`)];
      if (newest && resolve(newest) !== resolve(portfolio))
        out.push(
          problem(
            `stale portfolio: the hook is pinned to ${portfolio}, but ${newest} is newer (install again without naming a portfolio to follow the newest)`,
            "portfolio",
          ),
        );
      return out;
    } catch (err) {
      return [
        problem(
          `stale portfolio: ${(err as Error).message} — the hook will not load it (freeze again)`,
        ),
      ];
    }
  }
  const { policies, errors } = loadPolicies([portfolio]);
  if (errors.length)
    return [problem(`portfolio ${portfolio} does not load: ${errors[0]?.format()}`)];
  if (!policies.length) return [problem(`portfolio ${portfolio} has no candidate policies`)];
  return [ok(`portfolio ${portfolio}: ${policies.length} candidate policies load`)];
}

function codexFindings(
  file: string,
  settings: ReturnType<typeof readSettings>,
  target: HookTarget,
  env: NodeJS.ProcessEnv,
): DoctorFinding[] {
  const config = codexConfigToml(env);
  let trust: ReturnType<typeof readCodexTrust>;
  try {
    trust = readCodexTrust(config);
  } catch (err) {
    return [problem(`Codex config unreadable: ${(err as Error).message}`)];
  }
  const out: DoctorFinding[] = [];
  if (trust.hooksFeature === false)
    out.push(
      problem(`feature flag: ${config} sets [features] hooks = false, so Codex runs no hooks`),
    );
  const wanted = trustEntries(file, settings, isFireCommand);
  const untrusted = wanted.filter((e) => trust.state[e.key] === undefined);
  const modified = wanted.filter(
    (e) => trust.state[e.key] !== undefined && trust.state[e.key] !== e.hash,
  );
  if (untrusted.length)
    out.push(
      problem(
        `untrusted: ${untrusted.length} of fire's ${wanted.length} entries have no persisted hook trust in ${config}; Codex skips them without --dangerously-bypass-hook-trust (run \`fire hook install\` again)`,
      ),
    );
  if (modified.length)
    out.push(
      problem(
        `modified: ${modified.length} of fire's entries changed since they were trusted in ${config}; Codex skips them (run \`fire hook install\` again)`,
      ),
    );
  if (!untrusted.length && !modified.length && wanted.length)
    out.push(ok(`trusted: all ${wanted.length} entries have persisted hook trust in ${config}`));
  if (!target.user) {
    const project = resolve(target.project ?? process.cwd());
    if (![...trust.trustedProjects].some((p) => project === p || project.startsWith(`${p}/`)))
      out.push(
        problem(
          `project not trusted: Codex loads ${project}/.codex/ disabled ("Untrusted project-local configuration is disabled"), so fire's hook there never runs; trust it with \`fire hook install --harness codex --project ${shellQuote(project)}\` (it writes [projects."${project}"] trust_level = "trusted" to ${config})`,
        ),
      );
  }
  return out;
}

function claudeFindings(
  file: string,
  settings: ReturnType<typeof readSettings>,
  project: string,
  places: DoctorPlaces,
): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  if ((settings as { disableAllHooks?: unknown }).disableAllHooks === true)
    out.push(problem(`hooks disabled: ${file} sets "disableAllHooks": true`));
  out.push(...managedFindings(places.claudeManagedDir ?? CLAUDE_MANAGED_DIR, file));
  out.push(...agentSdkFindings(project));
  return out;
}

/**
 * Claude Code's managed settings (`managed-settings.json`, then `managed-settings.d/*.json`):
 * `allowManagedHooksOnly` makes the client run only managed hooks (and managed plugins'),
 * skipping user, project and local hooks without a word; `disableAllHooks` there turns every
 * hook off.
 */
function managedFindings(dir: string, file: string): DoctorFinding[] {
  const files = [join(dir, "managed-settings.json")];
  const dropIns = join(dir, "managed-settings.d");
  try {
    for (const f of readdirSync(dropIns).sort())
      if (f.endsWith(".json") && !f.startsWith(".")) files.push(join(dropIns, f));
  } catch {
    // no drop-in folder
  }
  const out: DoctorFinding[] = [];
  for (const f of files) {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(readFileSync(f, "utf8")) as Record<string, unknown>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        out.push(note(`managed settings ${f} could not be read (${(err as Error).message})`));
      continue;
    }
    if (value?.allowManagedHooksOnly === true)
      out.push(
        problem(
          `managed hooks only: ${f} sets "allowManagedHooksOnly": true, so Claude Code runs only hooks from managed settings and skips fire's hook in ${file} without a word (ask whoever manages ${dir} to add fire's hook command there)`,
        ),
      );
    if (value?.disableAllHooks === true)
      out.push(problem(`hooks disabled: managed settings ${f} set "disableAllHooks": true`));
  }
  return out;
}

/**
 * A project that hosts the Claude Agent SDK runs the SDK's own bundled Claude Code, not the
 * \`claude\` installed here: its version decides which hook features exist, and the host's
 * \`settingSources\` decides whether settings-file hooks load at all (older SDKs load none
 * unless told to).
 */
function agentSdkFindings(project: string): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const pkg = readJson(join(project, "package.json"));
  const deps = { ...asRecord(pkg?.dependencies), ...asRecord(pkg?.devDependencies) };
  const installed = readJson(
    join(project, "node_modules/@anthropic-ai/claude-agent-sdk/package.json"),
  );
  if (installed || "@anthropic-ai/claude-agent-sdk" in deps) {
    const version = str(installed?.version) ?? str(deps["@anthropic-ai/claude-agent-sdk"]) ?? "?";
    const bundled = str(installed?.claudeCodeVersion);
    out.push(
      note(
        `Claude Agent SDK host: ${project} uses @anthropic-ai/claude-agent-sdk ${version}, which runs its own bundled Claude Code${bundled ? ` ${bundled}` : ""}, not the claude installed here; fire's hook acts there only if the host's query() loads this settings file (settingSources naming "local", "project" or "user", as the hook's scope needs) and that bundled client has the hook features fire uses`,
      ),
    );
  }
  for (const f of ["pyproject.toml", "requirements.txt", "uv.lock", "poetry.lock"]) {
    let text: string;
    try {
      text = readFileSync(join(project, f), "utf8");
    } catch {
      continue;
    }
    if (/claude[-_]agent[-_]sdk/i.test(text)) {
      out.push(
        note(
          `Claude Agent SDK host: ${join(project, f)} names claude-agent-sdk (Python), which runs its own bundled Claude Code, not the claude installed here; fire's hook acts there only if the host's options load this settings file (setting_sources) and that bundled client has the hook features fire uses`,
        ),
      );
      break;
    }
  }
  return out;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

function asRecord(x: unknown): Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x)
    ? (x as Record<string, unknown>)
    : {};
}

const str = (x: unknown): string | undefined => (typeof x === "string" ? x : undefined);

export interface DoctorTarget extends HookTarget {
  /**
   * Diagnose fire's hook PLUGIN (`fire hook install --plugin`) for this scope. Without it, a
   * scope whose settings hold no fire hook but whose client records fire's plugin gets the
   * plugin diagnosed.
   */
  plugin?: boolean;
}

/** Diagnoses fire's installed hook (settings entries or plugin) for one harness and scope. */
export function diagnoseHook(target: DoctorTarget, places: DoctorPlaces = {}): DoctorReport {
  const env = target.env ?? process.env;
  const scope = target.user ? { user: true } : { project: target.project ?? process.cwd() };
  const file = settingsPath(target.harness, scope, env);
  const report = (findings: DoctorFinding[], about = file): DoctorReport => ({
    harness: target.harness,
    file: about,
    findings,
    ok: findings.every((f) => f.level !== "problem"),
  });
  const pluginScope = { harness: target.harness, ...scope, env };
  const diagnosePlugin = (): DoctorReport => {
    const p = pluginFindings(pluginScope);
    const installed = p.findings.some((f) => f.level === "ok");
    if (installed && target.harness === "claude") {
      let settings: ReturnType<typeof readSettings> = {};
      try {
        settings = readSettings(file);
      } catch {
        // named by the plugin's findings (enabledPlugins is read from the same file)
      }
      p.findings.push(
        ...claudeFindings(file, settings, resolve(target.project ?? process.cwd()), places),
      );
    }
    return report(p.findings, p.file);
  };
  if (target.plugin) return diagnosePlugin();
  let settings: ReturnType<typeof readSettings>;
  try {
    settings = readSettings(file);
  } catch (err) {
    return report([problem((err as Error).message)]);
  }
  const commands = new Set<string>();
  for (const groups of Object.values(settings.hooks ?? {}))
    for (const g of groups)
      for (const h of g.hooks) if (isFireCommand(h.command)) commands.add(h.command as string);
  if (commands.size === 0 && pluginRecorded(pluginScope)) return diagnosePlugin();
  if (commands.size === 0)
    return report([
      problem(
        `not installed: no fire hook in ${file} (run \`fire hook install --harness ${target.harness}${target.user ? " --user" : ""}\`)`,
      ),
    ]);
  const findings: DoctorFinding[] = [ok(`installed in ${file}`)];
  for (const c of commands) findings.push(...commandFindings(c, env));
  findings.push(
    ...(target.harness === "codex"
      ? codexFindings(file, settings, target, env)
      : claudeFindings(file, settings, resolve(target.project ?? process.cwd()), places)),
  );
  return report(findings);
}
