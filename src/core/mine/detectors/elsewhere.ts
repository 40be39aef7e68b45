import { fetchedOwnCopy } from "./fetched-copy.js";
import { gradedLocationUnvisited } from "./graded-location.js";
import type { Detector } from "./types.js";

/**
 * Detectors whose hit says the agent's work lay outside what the verifier graded (a folder
 * it never named, a copy it fetched itself): its own passing checks there show nothing of the
 * graded task, and the outcome was decided before a cut-off last turn.
 */
export const WORKED_ELSEWHERE: readonly Detector[] = [gradedLocationUnvisited, fetchedOwnCopy];
