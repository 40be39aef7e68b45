import { currentClusters } from "../../mine/run-mining.js";
import type { CompiledPolicy } from "../../policy/types.js";
import type { Workspace } from "../../workspace/load.js";
import { type ReplayScreen, runReplayScreen } from "./measure.js";
import { saveReplayScreen } from "./screen-files.js";
import { DEFAULT_SIZES, type ScreenSizes, screenCompetitors } from "./sets.js";

export interface ScreenCandidateOptions {
  sizes?: ScreenSizes;
  signal?: AbortSignal;
  now?: Date;
}

/**
 * `fire screen replay CANDIDATE`: replays `target` over the workspace's stored attempts, with
 * every other non-retired policy in `pool` as the routing competition and the current mining
 * labels' pre-failure states, and saves the screen. Shared by the CLI and the UI.
 */
export async function screenCandidate(
  ws: Workspace,
  target: CompiledPolicy,
  pool: readonly CompiledPolicy[],
  opts: ScreenCandidateOptions = {},
): Promise<{ screen: ReplayScreen; file: string }> {
  const others = screenCompetitors(target, pool);
  const mined = await currentClusters(ws);
  const preFailure = new Map<string, number>();
  for (const l of mined?.labels ?? [])
    if (l.preFailureState) preFailure.set(l.attemptId, l.preFailureState.eventIndex);
  const screen = runReplayScreen({
    policy: target,
    others,
    attempts: ws.attempts,
    preFailure,
    sizes: opts.sizes ?? DEFAULT_SIZES,
    seed: ws.config.screen.seed,
    thresholds: ws.config.verdicts,
    now: opts.now ?? new Date(),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const file = await saveReplayScreen(ws.dir, screen);
  return { screen, file };
}
