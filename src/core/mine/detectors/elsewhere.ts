import { fetchedOwnCopy } from "./fetched-copy.js";
import { gradedLocationUnvisited } from "./graded-location.js";
import { installedPackageEdited } from "./installed-package.js";
import { ownProjectBuilt } from "./own-project.js";
import type { Detector } from "./types.js";

/**
 * Detectors whose hit says the agent's work lay outside what the verifier graded (a folder
 * it never named, a copy it fetched itself, a project it started from nothing, an
 * installed package it patched instead): its own
 * passing checks there show nothing of the graded task.
 */
export const WORKED_ELSEWHERE: readonly Detector[] = [
  gradedLocationUnvisited,
  fetchedOwnCopy,
  ownProjectBuilt,
  installedPackageEdited,
];
