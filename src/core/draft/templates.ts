import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { InputError } from "../errors.js";
import { loadPolicies } from "../policy/load.js";
import { Candidate } from "../policy/schema.js";
import { STOP_WITHOUT_CHECK } from "./generic.js";

/**
 * Family templates: the reference portfolio shipped with fire (`candidates/reference/`, one
 * candidate per paper family, tuned on general contract phrases) plus the generic
 * stop-without-check template. A drafter copies the family's mechanics (eligibility, tracking,
 * rules, behaviour marker) and fills identity, chain state and lineage from the cluster.
 */
export const REFERENCE_DIR = fileURLToPath(
  new URL("../../../candidates/reference/", import.meta.url),
);

export interface Templates {
  byFamily: Map<string, Candidate>;
  errors: InputError[];
}

export function loadTemplates(dir: string = REFERENCE_DIR): Templates {
  const byFamily = new Map<string, Candidate>();
  const errors: InputError[] = [];
  if (existsSync(dir)) {
    const r = loadPolicies([dir]);
    errors.push(...r.errors);
    for (const p of r.policies) if (!byFamily.has(p.family)) byFamily.set(p.family, p.candidate);
  } else {
    errors.push(new InputError(dir, undefined, "reference templates not found"));
  }
  byFamily.set("stop-without-check", Candidate.parse(STOP_WITHOUT_CHECK));
  return { byFamily, errors };
}
