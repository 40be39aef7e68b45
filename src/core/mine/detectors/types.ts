import type { FamilyId } from "../../families.js";
import type { Attempt } from "../../model/attempt.js";

/** One piece of detector evidence: which events, and why. Stable shape shared with the LLM labeller. */
export interface DetectorHit {
  detectorId: string;
  family?: FamilyId;
  /** Mechanism id (core/mine/mechanisms.ts) the hit shows, when it shows one. */
  mechanism?: string;
  /** Normalized evidence for clustering (repeated error text, kind of missing artifact). */
  signature?: string;
  /**
   * The role the task text gives that this hit checked, for a detector that looks at the
   * trace without requiring one but found the task giving it (the detector's own `taskRole`
   * otherwise): a second, independent fact behind the hit.
   */
  taskRole?: string;
  /** The file the hit is about (a stray by-product, a test module), when there is one. */
  subject?: string;
  /** Indices into `attempt.events` (the `index` field of each event). */
  eventIndices: number[];
  reason: string;
}

/** What a detector may look at besides the attempt itself. */
export interface DetectorContext {
  /** Other attempts of the same task (any arm), excluding the attempt itself. */
  siblings: Attempt[];
}

/** A deterministic procedural-loss detector: one module, one purpose. */
export interface Detector {
  id: string;
  /** One line, shown in `fire mine` and in the TUI. */
  description: string;
  /** The mechanism family a hit suggests, when one fits. */
  family?: FamilyId;
  /** The mechanism its hits show (core/mine/mechanisms.ts); a hit may set its own instead. */
  mechanism?: string;
  /** True for detectors that show the agent *can* solve the task (capability evidence). */
  capability?: boolean;
  /**
   * The role the task text must give before the detector looks at the trace at all (e.g.
   * "the task asks for a service that stays reachable"): a hit then rests on two independent
   * facts, the task's role and the trace's state, and the labeller counts both.
   */
  taskRole?: string;
  detect(attempt: Attempt, ctx: DetectorContext): Omit<DetectorHit, "detectorId" | "family">[];
}
