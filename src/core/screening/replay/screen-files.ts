import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { Finding, type Verdict } from "../../verdict/finding.js";
import { withEvidence } from "../../verdict/prose.js";
import { runScreenVerdict } from "../../verdict/screen-verdict.js";
import { VerdictKind } from "../../verdict/thresholds.js";
import { workspacePaths } from "../../workspace/paths.js";
import { earlierReplayScreenFile, replayScreenFile } from "../paths.js";
import { readPlanIfAny } from "../plan/plan-file.js";
import type { ScreenPlan } from "../plan/schema.js";
import { loadScreenAnalysis } from "../results/analysis.js";
import type { ReplayScreen } from "./measure.js";

export async function saveReplayScreen(workspace: string, screen: ReplayScreen): Promise<string> {
  const file = replayScreenFile(workspace, screen.candidate);
  await mkdir(dirname(file), { recursive: true });
  // the findings decide; the same as text is kept for people reading the file
  const saved = { ...screen, verdict: withEvidence(screen.verdict) };
  await writeFileAtomic(file, `${JSON.stringify(saved, null, 2)}\n`);
  return file;
}

/**
 * What freezing and the verdict fold read from a saved replay screen; the rest (rows, sets,
 * summary) is a record for people and passes through.
 */
const SavedReplayScreen = z.looseObject({
  kind: z.literal("fire-replay-screen"),
  candidate: z.string(),
  candidateSha256: z.string(),
  verdict: z.object({
    verdict: VerdictKind,
    /** Absent in screens saved before findings: their evidence text is kept as recorded. */
    findings: z.array(Finding).optional(),
    evidence: z.array(z.string()),
  }),
});

/** The saved replay screen of `key`; undefined when there is none or it is not one. */
export function readReplayScreen(workspace: string, key: string): ReplayScreen | undefined {
  let raw: unknown;
  try {
    const file = replayScreenFile(workspace, key);
    const text = existsSync(file)
      ? readFileSync(file, "utf8")
      : readFileSync(earlierReplayScreenFile(workspace, key), "utf8");
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = SavedReplayScreen.safeParse(raw);
  if (!r.success || r.data.candidate !== key) return undefined;
  const { verdict, findings, evidence } = r.data.verdict;
  const saved: Finding[] = findings
    ? findings
    : evidence.map((text, i) => ({
        code: "recorded",
        text,
        ...(i === 0 ? { verdict } : {}),
      }));
  return { ...(raw as ReplayScreen), verdict: { verdict, findings: saved } };
}

export interface RunScreenEvidence {
  name: string;
  verdict: Verdict;
}

/**
 * Run screens (`fire screen plan/run/import`) whose plan's source is this candidate's file:
 * their report's verdict suggestions, folded (harmful wins). Only the plan's source decides
 * whose screen it is: a plan that `fire screen run` would refuse (edited since planning)
 * still carries evidence, so a harmful result keeps blocking a freeze. A folder whose plan
 * does not validate names no candidate and is passed over.
 */
export async function runScreensFor(workspace: string, file: string): Promise<RunScreenEvidence[]> {
  const root = workspacePaths(workspace).screens;
  if (!existsSync(root)) return [];
  const out: RunScreenEvidence[] = [];
  for (const name of readdirSync(root).sort()) {
    let src: ScreenPlan["source"] | undefined;
    try {
      src = (await readPlanIfAny(workspace, name))?.source;
    } catch {
      continue;
    }
    if (src?.kind !== "candidate") continue;
    if (resolve(workspace, src.path) !== resolve(file)) continue;
    try {
      const { analysis } = await loadScreenAnalysis(workspace, name);
      out.push({ name, verdict: runScreenVerdict(analysis.findings) });
    } catch {
      // a planned screen without results yet justifies nothing
    }
  }
  return out;
}
