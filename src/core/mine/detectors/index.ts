import { type Attempt, sameTask } from "../../model/attempt.js";
import { redact } from "../../redact.js";
import { attachedServer } from "./attached-server.js";
import { binaryNeverCompared } from "./binary-compare.js";
import { claimedMissing } from "./claimed-missing.js";
import { constraintUnchecked } from "./constraint-unchecked.js";
import { deadlineNoDeliverable } from "./deadline.js";
import { destructiveAfterProbe } from "./destructive-after-probe.js";
import { diffEmptiedByCommit } from "./diff-emptied.js";
import { earlierSuccess } from "./earlier-success.js";
import { editMissingFromDiff, submissionWithoutFix } from "./edit-not-delivered.js";
import { editedTestToPass } from "./edited-test.js";
import { emptySubmissionAfterEdits } from "./empty-submission.js";
import { evidenceMutated } from "./evidence-mutated.js";
import { fetchedOwnCopy } from "./fetched-copy.js";
import { gaveUp } from "./gave-up.js";
import { gradedLocationUnvisited } from "./graded-location.js";
import { gradedSubjectUnchecked } from "./graded-subject.js";
import { inputMissed } from "./input-missed.js";
import { installedPackageEdited } from "./installed-package.js";
import { killedOwnProcess } from "./killed-own.js";
import { latexLogUnchecked } from "./latex-log.js";
import { harnessLoopGuard } from "./loop-guard.js";
import { noDiffAfterReplace } from "./no-diff-after-replace.js";
import { noProgress } from "./no-progress.js";
import { artifactWrongPath, outputNeverWritten } from "./output-never-written.js";
import { overwroteExisting } from "./overwrote-existing.js";
import { ownProjectBuilt } from "./own-project.js";
import { passingSibling } from "./passing-sibling.js";
import { regressionUnchecked, targetTestsPassed } from "./regression.js";
import { repeatedFailure } from "./repeated-failure.js";
import { rewriteAfterEdit } from "./rewrite-after-edit.js";
import { siblingDifference } from "./sibling-difference.js";
import { singleAnswer } from "./single-answer.js";
import { statedNameAbsent } from "./stated-name.js";
import { stopFailedCheck } from "./stop-failed-check.js";
import { stopCheckNotRun, stopNoCheck } from "./stop-no-check.js";
import { strayArtifact } from "./stray-artifact.js";
import { timeout } from "./timeout.js";
import { tokenFieldsUnreconciled } from "./token-accounting.js";
import type { Detector, DetectorContext, DetectorHit } from "./types.js";
import { vacuousCheck } from "./vacuous-check.js";
import { waitingShell } from "./waiting-shell.js";

export type { Detector, DetectorContext, DetectorHit } from "./types.js";

/** Every detector, in a fixed order (hits come out in this order). */
export const DETECTORS: readonly Detector[] = [
  passingSibling,
  siblingDifference,
  earlierSuccess,
  targetTestsPassed,
  attachedServer,
  evidenceMutated,
  rewriteAfterEdit,
  noDiffAfterReplace,
  destructiveAfterProbe,
  latexLogUnchecked,
  binaryNeverCompared,
  tokenFieldsUnreconciled,
  singleAnswer,
  overwroteExisting,
  artifactWrongPath,
  outputNeverWritten,
  diffEmptiedByCommit,
  editMissingFromDiff,
  submissionWithoutFix,
  emptySubmissionAfterEdits,
  strayArtifact,
  inputMissed,
  claimedMissing,
  killedOwnProcess,
  gradedLocationUnvisited,
  fetchedOwnCopy,
  ownProjectBuilt,
  installedPackageEdited,
  deadlineNoDeliverable,
  constraintUnchecked,
  gradedSubjectUnchecked,
  statedNameAbsent,
  vacuousCheck,
  editedTestToPass,
  regressionUnchecked,
  stopNoCheck,
  stopCheckNotRun,
  stopFailedCheck,
  repeatedFailure,
  noProgress,
  harnessLoopGuard,
  waitingShell,
  timeout,
  gaveUp,
];

export function detectorById(id: string): Detector | undefined {
  return DETECTORS.find((d) => d.id === id);
}

/**
 * Runs every detector over one attempt. Pure and deterministic: the same attempt and
 * siblings give the same hits in the same order. A detector that throws is skipped
 * (its failure must never stop mining). `except` leaves detectors out by id (the sibling
 * comparison runs the others on the failed attempt without running itself again).
 */
export function runDetectors(
  attempt: Attempt,
  ctx: DetectorContext,
  except?: ReadonlySet<string>,
): DetectorHit[] {
  const hits: DetectorHit[] = [];
  for (const d of DETECTORS) {
    if (except?.has(d.id)) continue;
    let found: Omit<DetectorHit, "detectorId" | "family">[];
    try {
      found = d.detect(attempt, ctx);
    } catch {
      continue;
    }
    for (const h of found) {
      // Reasons quote commands: secrets never reach labels, caches or prompts.
      const hit: DetectorHit = {
        detectorId: d.id,
        eventIndices: [...h.eventIndices],
        reason: redact(h.reason),
      };
      if (d.family) hit.family = d.family;
      const mechanism = h.mechanism ?? d.mechanism;
      if (mechanism) hit.mechanism = mechanism;
      if (h.signature) hit.signature = redact(h.signature);
      if (h.subject) hit.subject = redact(h.subject);
      if (h.taskRole) hit.taskRole = h.taskRole;
      hits.push(hit);
    }
  }
  return hits;
}

/** Siblings of each attempt (same task id), for `runDetectors`' context. */
export function siblingsByTask(attempts: readonly Attempt[]): Map<string, Attempt[]> {
  const m = new Map<string, Attempt[]>();
  for (const a of attempts) m.set(a.taskId, [...(m.get(a.taskId) ?? []), a]);
  return m;
}

/** Runs detectors over a whole corpus: attempt id → hits. */
export function runDetectorsAll(attempts: readonly Attempt[]): Map<string, DetectorHit[]> {
  const byTask = siblingsByTask(attempts);
  const out = new Map<string, DetectorHit[]>();
  for (const a of attempts) {
    const siblings = (byTask.get(a.taskId) ?? []).filter((s) => s.id !== a.id && sameTask(s, a));
    out.set(a.id, runDetectors(a, { siblings }));
  }
  return out;
}
