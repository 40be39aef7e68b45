/**
 * The candidate editor's actions (workbench Candidates, `fire candidate revise --from`):
 * checking and saving a hand-edited text, the structured edits, the field form, and the
 * replay preview of the text being edited.
 */

export { checkCandidateText, saveCandidateText } from "../lifecycle/save-text.js";
export {
  type AddTarget,
  addCondition,
  addPattern,
  addTargets,
  copyRule,
  type EditResult,
  removeUnit,
  type Unit,
  unitsAt,
} from "../lifecycle/structure.js";
export { type Field, fieldsOf, setField } from "../policy/fields.js";
export { compileCandidateText } from "../policy/load.js";
export {
  type GroupAttempts,
  type GroupCount,
  type Preview,
  type PreviewContext,
  type PreviewCounts,
  previewCounts,
  previewText,
} from "../screening/replay/preview.js";
export { candidateEvidence } from "../verdict/evidence.js";
