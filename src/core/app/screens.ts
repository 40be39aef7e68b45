import type { StoredCandidate } from "../lifecycle/store.js";
import type { ReplayScreen } from "../screening/replay/measure.js";
import { screenCandidate } from "../screening/replay/screen-candidate.js";
import { readReplayScreen } from "../screening/replay/screen-files.js";
import { DEFAULT_SIZES, type ScreenSizes } from "../screening/replay/sets.js";
import { liveCandidates } from "./route.js";
import {
  type CandidateSession,
  candidateAt,
  compiledPool,
  type LoadedCandidateSession,
} from "./session.js";

export { liveCandidates, routingAudit } from "./route.js";

export interface ReplayScreenOptions {
  sizes?: ScreenSizes;
  signal?: AbortSignal;
  now?: Date;
}

/**
 * `fire screen replay CANDIDATE`: replays the candidate over the stored policy-free attempts
 * with every other candidate as the routing competition, and saves the screen.
 */
export function replayScreen(
  s: LoadedCandidateSession,
  target: string | StoredCandidate,
  opts: ReplayScreenOptions = {},
): Promise<{ screen: ReplayScreen; file: string }> {
  const c = typeof target === "string" ? candidateAt(s, target) : target;
  return screenCandidate(s.ws, c.policy, compiledPool(s), {
    sizes: opts.sizes ?? DEFAULT_SIZES,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
}

/**
 * The saved replay screen of each live candidate (by policy key), read once: what a screen
 * list shows per row without touching the disk while it renders.
 */
export function savedReplayScreens(s: CandidateSession): Map<string, ReplayScreen | undefined> {
  return new Map(
    liveCandidates(s).map((c) => [c.policy.key, readReplayScreen(s.ws.dir, c.policy.key)]),
  );
}

export { DEFAULT_SIZES } from "../screening/replay/sets.js";
