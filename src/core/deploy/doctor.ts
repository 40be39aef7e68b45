import { accessSync, constants, existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultPortfolioDir } from "../freeze/default.js";
import { loadFrozenPortfolio } from "../freeze/verify.js";
import { loadPolicies } from "../policy/load.js";
import { readCodexTrust, trustEntries } from "./codex-trust.js";
import { codexConfigToml, type HookTarget } from "./install.js";
import { type Harness, isFireCommand, readSettings, settingsPath, shellWords } from "./settings.js";

/**
 * `fire hook doctor --harness H`: whether the hook fire installed will run in the real
 * client, and if not, why — one line per problem (trust, feature flag, missing `node`, the
 * portfolio it evaluates).
 */

export interface DoctorFinding {
  level: "ok" | "problem";
  text: string;
}

export interface DoctorReport {
  harness: Harness;
  file: string;
  findings: DoctorFinding[];
  /** True when no problem was found. */
  ok: boolean;
}

const problem = (text: string): DoctorFinding => ({ level: "problem", text });
const ok = (text: string): DoctorFinding => ({ level: "ok", text });

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
  const out: Record<string, string> = {};
  for (let i = 3; i < words.length; i++) {
    const w = words[i] as string;
    if (w.startsWith("#")) break;
    if (w.startsWith("--") && w !== "--fail-closed") out[w.slice(2)] = words[++i] ?? "";
  }
  return out;
}

/** Checks what an installed command runs: node, fire, and the portfolio it evaluates. */
function commandFindings(command: string): DoctorFinding[] {
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
          `nothing frozen: no portfolio under ${join(workspace, "portfolios")}/, so the hook stays silent (run \`fire freeze\`)`,
        ),
      );
    else out.push(...portfolioFindings(dir, workspace));
  }
  return out;
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
            `stale portfolio: the hook is pinned to ${portfolio}, but ${newest} is newer (reinstall without --portfolio to follow the newest)`,
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
          `project not trusted: Codex loads ${project}/.codex/ disabled ("Untrusted project-local configuration is disabled"); mark it trusted in ${config}`,
        ),
      );
  }
  return out;
}

function claudeFindings(file: string, settings: ReturnType<typeof readSettings>): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  if ((settings as { disableAllHooks?: unknown }).disableAllHooks === true)
    out.push(problem(`hooks disabled: ${file} sets "disableAllHooks": true`));
  return out;
}

/** Diagnoses fire's installed hook for one harness and scope. */
export function diagnoseHook(target: HookTarget): DoctorReport {
  const env = target.env ?? process.env;
  const scope = target.user ? { user: true } : { project: target.project ?? process.cwd() };
  const file = settingsPath(target.harness, scope, env);
  const report = (findings: DoctorFinding[]): DoctorReport => ({
    harness: target.harness,
    file,
    findings,
    ok: findings.every((f) => f.level === "ok"),
  });
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
  if (commands.size === 0)
    return report([
      problem(
        `not installed: no fire hook in ${file} (run \`fire hook install --harness ${target.harness}${target.user ? " --user" : ""}\`)`,
      ),
    ]);
  const findings: DoctorFinding[] = [ok(`installed in ${file}`)];
  for (const c of commands) findings.push(...commandFindings(c));
  findings.push(
    ...(target.harness === "codex"
      ? codexFindings(file, settings, target, env)
      : claudeFindings(file, settings)),
  );
  return report(findings);
}
