import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { Command } from "commander";
import { candidateEvidence, compileCandidateText } from "../../core/app/editor.js";
import {
  acceptRefinement,
  candidateNamed,
  candidateSession,
  promote,
  refine,
  retire,
  revise,
  sessionOf,
} from "../../core/app/index.js";
import {
  evidenceLines,
  policyKey,
  renderRefineResult,
  withEvidence,
} from "../../core/app/present.js";
import { UsageError } from "../../core/errors.js";
import type { Candidate } from "../../core/policy/schema.js";
import { printErr, printResult } from "../util/out.js";
import { openWorkspace, printErrors, withWorkspace, workspaceDir } from "../util/workspace.js";

type RefOpts = { workspace?: string; json?: boolean };

function load(opts: RefOpts, ref: string) {
  const dir = workspaceDir(opts);
  const session = candidateSession(dir);
  printErrors(session.candidateErrors);
  return { dir, session, target: candidateNamed(session, ref) };
}

/** `fire candidate refine NAME [--accept ID]`: search refinements, optionally accept one. */
function registerRefine(cmd: Command): void {
  withWorkspace(
    cmd
      .command("refine")
      .description(
        "search refinements from its latest replay screen (eligibility phrases, trigger, release, patterns), with before/after and a diff; nothing is saved unless --accept",
      )
      .argument("<id>", "candidate id or id@version")
      .option("--budget <seconds>", "search time budget (the best found so far is shown)", "30")
      .option("--accept <proposal>", "write this proposal as a new revision (refined from …)")
      .option("--json", "print the search result (and the accepted revision) as JSON"),
  ).action(async (ref: string, opts: RefOpts & { budget: string; accept?: string }) => {
    if (!/^\d+(\.\d+)?$/.test(opts.budget) || Number(opts.budget) <= 0)
      throw new UsageError("--budget must be a positive number of seconds");
    const session = await sessionOf(await openWorkspace(opts));
    printErrors(session.candidateErrors);
    const target = candidateNamed(session, ref);
    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once("SIGINT", onSigint);
    const tty = process.stderr.isTTY && !opts.json;
    let r: Awaited<ReturnType<typeof refine>>;
    try {
      r = await refine(session, target, {
        budgetMs: Number(opts.budget) * 1000,
        signal: controller.signal,
        ...(tty
          ? {
              onProgress: (p) => {
                process.stderr.write("\r");
                printErr(
                  `refining: ${p.tried} replayed${p.best ? `, best ${p.best}` : ""} (${(p.elapsedMs / 1000).toFixed(0)} s)`,
                );
                process.stderr.write("\x1b[K");
              },
            }
          : {}),
      });
    } finally {
      process.removeListener("SIGINT", onSigint);
      if (tty) process.stderr.write("\r\x1b[K");
    }
    if (!opts.accept) {
      printResult(opts.json, r, () => renderRefineResult(r));
      return;
    }
    const chosen = r.proposals.find((p) => p.id === opts.accept);
    if (!chosen)
      throw new UsageError(
        `no proposal ${opts.accept} for ${target.policy.key} (proposals now: ${r.proposals.map((p) => p.id).join(", ") || "none"})`,
      );
    const rev = await acceptRefinement(session, target, chosen);
    const policy = policyKey(rev.candidate);
    const file = relative(session.ws.dir, rev.file);
    printResult(
      opts.json,
      {
        ok: true,
        policy,
        refinedFrom: target.policy.key,
        proposal: chosen.id,
        file,
        after: chosen.after,
      },
      () =>
        `${policy} refined from ${target.policy.key} (${chosen.summary.join("; ")}): ${file}\nscreen it: fire screen replay ${policy}\n`,
    );
  });
}

/** `fire candidate revise|retire|promote`: the user's lifecycle decisions. */
export function register(program: Command): void {
  const cmd = program
    .command("candidate")
    .description("revise, refine, retire or promote a candidate");
  registerRefine(cmd);

  withWorkspace(
    cmd
      .command("revise")
      .description("new identity (next version, supersedes the old, which stays)")
      .argument("<id>", "candidate id or id@version")
      .option("--from <file>", "the edited candidate (default: a copy of the old one to edit)")
      .option("--note <text>", "why it was revised", "revised")
      .option("--json", "print {ok, policy, supersedes, file, oldUpdated} as JSON"),
  ).action(async (ref: string, opts: RefOpts & { from?: string; note: string }) => {
    const { dir, session, target } = load(opts, ref);
    let edited: Candidate | undefined;
    if (opts.from) {
      const r = compileCandidateText(readFileSync(opts.from, "utf8"), opts.from);
      if (!r.policy) {
        printErrors(r.errors);
        throw new UsageError(`${opts.from} is not a valid candidate`);
      }
      edited = r.policy.candidate;
    }
    const r = await revise(session, target, opts.note, edited ? { edited } : {});
    const policy = policyKey(r.candidate);
    const file = relative(dir, r.file);
    printResult(
      opts.json,
      { ok: true, policy, supersedes: target.policy.key, file, oldUpdated: r.oldUpdated },
      () =>
        `${policy} supersedes ${target.policy.key}: ${file} (the old file stays${r.oldUpdated ? ", its history notes the revision" : ", frozen and untouched"})\n`,
    );
  });

  withWorkspace(
    cmd
      .command("retire")
      .description("retire a candidate (kept on disk, status retired)")
      .argument("<id>", "candidate id or id@version")
      .requiredOption("--reason <text>", "why it is retired")
      .option("--json", "print {ok, policy, status, reason} as JSON"),
  ).action(async (ref: string, opts: RefOpts & { reason: string }) => {
    const { session, target } = load(opts, ref);
    await retire(session, target, opts.reason);
    printResult(
      opts.json,
      { ok: true, policy: target.policy.key, status: "retired", reason: opts.reason },
      () => `retired ${target.policy.key}: ${opts.reason}\n`,
    );
  });

  withWorkspace(
    cmd
      .command("promote")
      .description("promote a draft to screening")
      .argument("<id>", "candidate id or id@version")
      .option("--note <text>", "a note for the history", "")
      .option("--json", "print {ok, policy, status} as JSON"),
  ).action(async (ref: string, opts: RefOpts & { note: string }) => {
    const { session, target } = load(opts, ref);
    await promote(session, target, opts.note);
    printResult(
      opts.json,
      { ok: true, policy: target.policy.key, status: "screening" },
      () => `promoted ${target.policy.key} to screening\n`,
    );
  });

  withWorkspace(
    cmd
      .command("verdict")
      .description("the suggested verdict from its replay and run screens, with the evidence")
      .argument("<id>", "candidate id or id@version")
      .option("--json", "print as JSON"),
  ).action(async (ref: string, opts: RefOpts) => {
    const { dir, target } = load(opts, ref);
    const ev = await candidateEvidence(dir, target);
    printResult(
      opts.json,
      {
        policy: ev.policy,
        status: target.candidate.status,
        suggested: withEvidence(ev.suggested),
        runs: ev.runs.map((r) => r.name),
      },
      () =>
        `${ev.policy} (${target.candidate.status}): ${ev.suggested.verdict}\n${evidenceLines(
          ev.suggested,
        )
          .map((e) => `  - ${e}`)
          .join("\n")}\n`,
    );
  });
}
