import type { TaskSpec } from "../types.js";
import { binaryEquivalence } from "./binary-equivalence.js";
import { databaseEvidence } from "./database-evidence.js";
import { datasetTokenAccounting } from "./dataset-token-accounting.js";
import { deploymentPreservation } from "./deployment-preservation.js";
import { exactReplacement } from "./exact-replacement.js";
import { latexFinalLog } from "./latex-final-log.js";
import { multiAnswerEnumeration } from "./multi-answer-enumeration.js";
import { servicePersistence } from "./service-persistence.js";
import { silentTasks } from "./silent.js";
import { faultTasks } from "./silent-faults.js";
import { moreSilentTasks } from "./silent-more.js";
import { repoTasks } from "./silent-repo.js";
import { stopWithoutCheck } from "./stop-without-check.js";

/** Every task the generator knows, family tasks first, in a fixed order. */
export const CATALOGUE: readonly TaskSpec[] = [
  ...servicePersistence,
  ...deploymentPreservation,
  ...databaseEvidence,
  ...exactReplacement,
  ...latexFinalLog,
  ...binaryEquivalence,
  ...datasetTokenAccounting,
  ...multiAnswerEnumeration,
  ...stopWithoutCheck,
  ...silentTasks,
  ...repoTasks,
  ...faultTasks,
  ...moreSilentTasks,
];
