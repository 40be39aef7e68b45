import type { FamilyId } from "../core/families.js";
import type { Cohort as CoreCohort } from "../core/model/cohort.js";
import type { AgentProfile } from "./agents.js";
import type { Rng } from "./prng.js";

/** Which group a task belongs to in the demo's ground truth (a cohort of core/model/cohort.ts). */
export type Cohort = Extract<CoreCohort, "positive" | "nearby-negative" | "silent">;

/** The mechanism planted in an attempt (null: none, e.g. a pass or an ordinary mistake). */
export type Planted = FamilyId | "capability_gap" | "provider_fault" | null;

/** One shell action of a scripted attempt: what the agent said, ran, and saw. */
export interface ScriptStep {
  say: string;
  cmd: string;
  out: string;
  exit: number;
  /** Seconds the command took (drives timestamps). */
  secs: number;
}

/** An attempt as the generator plans it, before any trace format is chosen. */
export interface AttemptScript {
  steps: ScriptStep[];
  /** The agent's closing message (absent for provider faults). */
  final: string | null;
  pass: boolean;
  reward: number;
  verifierStdout: string;
  planted: Planted;
  /** Index into `steps` of the pre-failure state (the risky action), or null. */
  preFailure: number | null;
  /** Index into `steps` of capability evidence (a working probe / test run), or null. */
  evidence: number | null;
  exception?: { type: string; message: string };
}

export type AttemptKind = "good" | "bad" | "bad2" | "gap" | "fault" | "timeout";

/** A task in the catalogue. `plan` lists the attempt kinds, one per attempt. */
export interface TaskSpec {
  id: string;
  family: FamilyId | null;
  cohort: Cohort;
  instruction: string;
  plan: AttemptKind[];
  build(kind: AttemptKind, rng: Rng): AttemptScript;
}

/** What a trace writer (writers/) renders: one attempt's script in one harness's format. */
export interface TraceInput {
  script: AttemptScript;
  /** The task instruction the agent was given. */
  instruction: string;
  /** The agent whose idiom the trace is written in. */
  agent: AgentProfile;
  sessionId: string;
  startMs: number;
  rng: Rng;
}
