import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { loadScreenAnalysis } from "../screen/analysis.js";
import { screenPaths } from "../screen/paths.js";
import type { ReplayScreen } from "./replay-screen.js";
import { runScreenVerdict, type SuggestedVerdict } from "./verdict.js";

/** `screens/replay-<id>-v<version>/`: the replay screen of one candidate identity. */
export function replayScreenName(key: string): string {
  return `replay-${key.replace("@", "-v")}`;
}

export async function saveReplayScreen(workspace: string, screen: ReplayScreen): Promise<string> {
  const dir = screenPaths(workspace, replayScreenName(screen.candidate)).dir;
  await mkdir(dir, { recursive: true });
  const file = join(dir, "screen.json");
  await writeFileAtomic(file, `${JSON.stringify(screen, null, 2)}\n`);
  return file;
}

export function readReplayScreen(workspace: string, key: string): ReplayScreen | undefined {
  const file = join(screenPaths(workspace, replayScreenName(key)).dir, "screen.json");
  try {
    const s = JSON.parse(readFileSync(file, "utf8")) as ReplayScreen;
    return s?.kind === "fire-replay-screen" && s.candidate === key ? s : undefined;
  } catch {
    return undefined;
  }
}

export interface RunScreenEvidence {
  name: string;
  verdict: SuggestedVerdict;
}

/**
 * Run screens (`fire screen plan/run/import`) whose plan's source is this candidate's file:
 * their report's verdict suggestions, folded (harmful wins).
 */
export async function runScreensFor(workspace: string, file: string): Promise<RunScreenEvidence[]> {
  const root = join(resolve(workspace), "screens");
  if (!existsSync(root)) return [];
  const out: RunScreenEvidence[] = [];
  for (const name of readdirSync(root).sort()) {
    const plan = join(root, name, "plan.json");
    let src: { kind?: string; path?: string } | undefined;
    try {
      src = (JSON.parse(readFileSync(plan, "utf8")) as { source?: typeof src }).source;
    } catch {
      continue;
    }
    if (src?.kind !== "candidate" || !src.path) continue;
    if (resolve(workspace, src.path) !== resolve(file)) continue;
    try {
      const { analysis } = await loadScreenAnalysis(workspace, name);
      out.push({ name, verdict: runScreenVerdict(analysis.verdicts) });
    } catch {
      // a planned screen without results yet justifies nothing
    }
  }
  return out;
}
