import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { withHistory } from "../lifecycle/actions.js";
import { type StoredCandidate, writeCandidate } from "../lifecycle/store.js";
import type { Attempt } from "../model/attempt.js";
import { hookForm } from "../policy/hook-form.js";
import { routeAudit, routingProblems, taskTexts } from "../route/audit.js";
import { canonicalJson } from "../screening/canonical.js";
import { replayScreenName } from "../screening/paths.js";
import { candidateEvidence } from "../verdict/evidence.js";
import { deciding, type Verdict } from "../verdict/finding.js";
import { evidenceLines, findingLine } from "../verdict/prose.js";
import type { FireConfig } from "../workspace/config.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  MANIFEST_FILE,
  type ManifestPolicy,
  type ManifestScreen,
  type PortfolioManifest,
} from "./manifest.js";
import { manifestHashOf, sha256 } from "./verify.js";

/** The portfolio's hook form (see PortfolioManifest.hook). */
const HOOK_FILE = "hook.json";

export interface FreezeInput {
  workspace: string;
  name: string;
  candidates: StoredCandidate[];
  attempts: readonly Attempt[];
  config: FireConfig;
  /** Freeze despite missing evidence; the reason is recorded in the manifest. */
  force?: { reason: string };
  now: Date;
}

export type FreezeResult =
  | { ok: true; dir: string; manifest: PortfolioManifest }
  | { ok: false; refused: Refusal[] };

/** Why one candidate was not frozen: in words, and the verdict (with its findings) it had. */
export interface Refusal {
  policy: string;
  missing: string[];
  verdict: Verdict;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The freeze gate: the candidate's folded verdict over its current screens
 * (candidateEvidence, what `fire candidate verdict` and the workbench show) must be
 * promising. Refused, it names the findings that decided the verdict; the screens that
 * justify a freeze are those of its current screens whose own verdict is promising.
 */
async function evidenceFor(
  ws: string,
  s: StoredCandidate,
): Promise<{ screens: ManifestScreen[]; missing: string[]; verdict: Verdict }> {
  const key = s.policy.key;
  const ev = await candidateEvidence(ws, s);
  const screens: ManifestScreen[] = [];
  const current = ev.replay && !ev.replay.stale ? ev.replay.screen : undefined;
  if (current?.verdict.verdict === "promising")
    screens.push({
      policy: key,
      kind: "replay",
      name: replayScreenName(key),
      verdict: "promising",
      evidence: evidenceLines(current.verdict),
    });
  for (const r of ev.runs)
    if (r.verdict.verdict === "promising")
      screens.push({
        policy: key,
        kind: "run",
        name: r.name,
        verdict: "promising",
        evidence: evidenceLines(r.verdict),
      });
  const missing: string[] = [];
  if (ev.suggested.verdict !== "promising") {
    if (!current && ev.runs.length === 0) {
      const why = ev.replay
        ? `replay screen ${replayScreenName(key)} is stale (the candidate changed since)`
        : `no replay screen (run \`fire screen replay ${key}\`)`;
      missing.push(`no promising screen: ${why}`);
    } else {
      const why = deciding(ev.suggested).map(findingLine).join("; ");
      missing.push(`the screens say ${ev.suggested.verdict}: ${why}`);
    }
  }
  return { screens, missing, verdict: ev.suggested };
}

/**
 * `fire freeze`: refuses (naming what is missing per candidate) unless every candidate has a
 * promising replay or run screen of its current content and an acceptable routing audit
 * (routes a task; no task it routes goes to another family of the portfolio), or `force`
 * gives a reason. Writes `portfolios/<name>/` (policies as canonical JSON + manifest) through a
 * temporary folder renamed into place, then marks the source candidates frozen.
 */
export async function freezePortfolio(input: FreezeInput): Promise<FreezeResult> {
  const { workspace, name, candidates, now } = input;
  if (!NAME.test(name)) throw new Error(`portfolio name "${name}" must be letters, digits, . _ -`);
  const root = workspacePaths(workspace).portfolios;
  const dir = join(root, name);
  if (existsSync(dir))
    throw new Error(
      `portfolio ${name} already exists (frozen portfolios are immutable; pick a new name)`,
    );
  if (candidates.length === 0) throw new Error("name at least one candidate to freeze");
  const keys = candidates.map((c) => c.policy.key);
  const dup = keys.find((k, i) => keys.indexOf(k) !== i);
  if (dup) throw new Error(`${dup} is named twice`);

  const routing = routeAudit(
    candidates.map((c) => c.policy),
    taskTexts(input.attempts),
  );
  const screens: ManifestScreen[] = [];
  const refused: Refusal[] = [];
  for (const c of candidates) {
    const ev = await evidenceFor(workspace, c);
    screens.push(...ev.screens);
    const missing = [
      ...ev.missing,
      ...routingProblems(routing, c.policy.key).map((p) => `routing: ${p}`),
    ];
    if (c.candidate.status === "retired") missing.push("the candidate is retired");
    if (missing.length) refused.push({ policy: c.policy.key, missing, verdict: ev.verdict });
  }
  if (refused.length > 0 && !input.force) return { ok: false, refused };

  const policies: ManifestPolicy[] = [];
  const files: { path: string; text: string }[] = [];
  const forHook: { file: string; candidate: StoredCandidate["candidate"] }[] = [];
  for (const c of candidates) {
    const frozen = withHistory(c.candidate, `frozen into portfolio ${name}`, now, "frozen");
    const text = `${canonicalJson(frozen)}\n`;
    const file = `policies/${c.policy.key}.json`;
    files.push({ path: file, text });
    forHook.push({ file, candidate: frozen });
    policies.push({
      id: frozen.id,
      version: frozen.version,
      family: frozen.family,
      file,
      sha256: sha256(text),
      source: relative(workspace, c.file),
    });
  }
  const hookText = `${JSON.stringify(hookForm(forHook))}\n`;
  files.push({ path: HOOK_FILE, text: hookText });
  const body: Omit<PortfolioManifest, "manifestHash"> = {
    kind: "fire-portfolio",
    version: 1,
    name,
    frozenAt: now.toISOString(),
    policies,
    hook: { file: HOOK_FILE, sha256: sha256(hookText) },
    routing,
    screens,
    forced: input.force
      ? refused.map((r) => ({ policy: r.policy, missing: r.missing, reason: input.force!.reason }))
      : [],
    analysis: {
      evaluator: "core/policy/evaluator step() (the hook's)",
      verdicts: input.config.verdicts,
      screen: input.config.screen,
      passThreshold: input.config.passThreshold,
      tokenEstimate: "characters / 4",
    },
  };
  const manifest: PortfolioManifest = { ...body, manifestHash: manifestHashOf(body) };

  await writeFolderOnce(root, name, files, manifest);

  for (const c of candidates) {
    if (c.candidate.status === "frozen") continue;
    await writeCandidate(
      c.file,
      withHistory(c.candidate, `frozen into portfolio ${name}`, now, "frozen"),
    );
  }
  return { ok: true, dir, manifest };
}

/**
 * Writes the portfolio into a private temporary folder, then renames it into place. Any
 * failure (a full disk, or another freeze of the same name that got there first) removes
 * the temporary folder, so nothing half-written is left for the hook to find.
 */
async function writeFolderOnce(
  root: string,
  name: string,
  files: readonly { path: string; text: string }[],
  manifest: PortfolioManifest,
): Promise<void> {
  const tmp = join(root, `.${name}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    await mkdir(join(tmp, "policies"), { recursive: true });
    for (const f of files) await writeFile(join(tmp, f.path), f.text);
    await writeFile(join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(tmp, join(root, name));
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOTEMPTY" || code === "EEXIST")
      throw new Error(
        `portfolio ${name} already exists (frozen portfolios are immutable; pick a new name)`,
      );
    throw e;
  }
}
