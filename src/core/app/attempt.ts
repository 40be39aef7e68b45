/**
 * Reading one attempt (workbench Attempt, compare view): its markers, its passing sibling and
 * the step-by-step alignment with it.
 */

export { type AlignedRow, alignAttempts, passingSibling, type Step } from "../compare/align.js";
export { attemptMarkers, type Marker, type MarkerKind, siblingsOf } from "../mine/markers.js";
