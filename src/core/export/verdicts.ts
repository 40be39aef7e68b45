import { relative } from "node:path";
import { type CandidateSession, storedCandidates } from "../app/session.js";
import type { StoredCandidate } from "../lifecycle/entries.js";
import { type CandidateEvidence, candidateEvidence } from "../verdict/evidence.js";
import { evidenceLines } from "../verdict/prose.js";
import type { Column } from "./tables.js";

/** One candidate with the evidence `fire candidate verdict` shows for it. */
export interface VerdictRow {
  /** Workspace-relative candidate file. */
  file: string;
  candidate: StoredCandidate;
  evidence: CandidateEvidence;
}

/**
 * Every valid candidate of the workspace (retired ones too: `status` says so) with its
 * suggested verdict, from the same `candidateEvidence` as `fire candidate verdict`.
 */
export async function verdictRows(s: CandidateSession): Promise<VerdictRow[]> {
  return Promise.all(
    storedCandidates(s).map(async (c) => ({
      file: relative(s.ws.dir, c.file),
      candidate: c,
      evidence: await candidateEvidence(s.ws.dir, c),
    })),
  );
}

/** The suggested verdict of every candidate (docs/commands.md). */
export const VERDICT_COLUMNS: readonly Column<VerdictRow>[] = [
  { name: "policy", value: (r) => r.evidence.policy },
  { name: "id", value: (r) => r.candidate.candidate.id },
  { name: "version", value: (r) => r.candidate.candidate.version },
  { name: "status", value: (r) => r.candidate.candidate.status },
  { name: "family", value: (r) => r.candidate.candidate.family },
  { name: "file", value: (r) => r.file },
  { name: "verdict", value: (r) => r.evidence.suggested.verdict },
  { name: "replayVerdict", value: (r) => r.evidence.replay?.screen.verdict.verdict ?? null },
  { name: "replayStale", value: (r) => r.evidence.replay?.stale ?? null },
  { name: "runScreens", value: (r) => r.evidence.runs.map((x) => x.name) },
  {
    name: "runVerdicts",
    value: (r) => r.evidence.runs.map((x) => `${x.name}:${x.verdict.verdict}`),
  },
  {
    name: "evidence",
    value: (r) => evidenceLines(r.evidence.suggested),
    csvSeparator: "\n",
  },
];
