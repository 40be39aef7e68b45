import { compilePolicy } from "./compile.js";
import { linearCandidate } from "./linear-candidate.js";
import { necessaryLiterals } from "./prefilter.js";
import type { CompiledPolicy } from "./types.js";

type Candidate = CompiledPolicy["candidate"];

/** Bumped when what a hook form holds changes meaning. */
export const HOOK_FORM = "fire-hook-form/2 (linear patterns, literal prefilters, behaviour, mode)";

/**
 * A portfolio as the hook evaluates it: each candidate with only what `step` reads and every
 * pattern in its linear form, plus each condition pattern's literal prefilter. The hook's
 * portfolio cache holds one, and so does a frozen portfolio (`hook.json`, hashed by its
 * manifest), so a hook call compiles without parsing or admitting any pattern.
 */
export interface HookForm {
  format: string;
  policies: { file?: string; candidate: Candidate }[];
  /** `flags/source` → literals; null: the pattern has none and always runs. */
  literals: Record<string, string[] | null>;
}

/**
 * A validated candidate as the hook keeps it: eligibility, task values, tracking, rules, the
 * behaviour marker (the hook logs when an instruction is followed, and escalation reads it)
 * and the mode, every pattern in its linear form. The prose (chain, lineage, notes, sham) is
 * dropped.
 */
export function forHook(c: Candidate): Candidate {
  const { id, version, family, title, status, eligibility, values, track, rules, behavior } = c;
  return linearCandidate({
    id,
    version,
    family,
    title,
    status,
    ...(c.mode ? { mode: c.mode } : {}),
    eligibility,
    ...(values.length > 0 ? { values } : {}),
    track,
    rules,
    behavior,
  } as Candidate);
}

/** The hook form of validated candidates (admits every pattern: the slow, once-only step). */
export function hookForm(policies: readonly { file?: string; candidate: Candidate }[]): HookForm {
  const out = policies.map((p) => ({
    ...(p.file === undefined ? {} : { file: p.file }),
    candidate: forHook(p.candidate),
  }));
  const literals: HookForm["literals"] = {};
  // found by compiling each hook candidate once, the way a hook call will
  const record = (source: string, flags: string) => {
    const l = necessaryLiterals(source, flags);
    literals[`${flags}/${source}`] = l ? [...l] : null;
    return l;
  };
  for (const p of out) compilePolicy(p.candidate, p.file, { admitted: true, literals: record });
  return { format: HOOK_FORM, policies: out, literals };
}

/**
 * Compiles a hook form (no pattern parsed); `fileOf` maps a stored file to its path. Lazily:
 * each condition and pattern when an event first needs it (the hook's hot path; every
 * pattern was admitted when the form was made). `lazy` false: every pattern now, so a form
 * from a writable place (the portfolio cache) that holds a refused pattern throws here.
 */
export function compileHookForm(
  form: Pick<HookForm, "policies" | "literals">,
  fileOf: (file: string | undefined) => string | undefined = (f) => f,
  lazy = true,
): CompiledPolicy[] {
  const known = form.literals ?? {};
  const literals = (source: string, flags: string) => known[`${flags}/${source}`] ?? undefined;
  return form.policies.map((p) =>
    compilePolicy(p.candidate, fileOf(p.file), { admitted: true, literals, lazy }),
  );
}
