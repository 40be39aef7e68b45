import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { Command } from "commander";
import { candidateNamed, candidateSession, promote, retire, revise } from "../../core/app/index.js";
import { UsageError } from "../../core/errors.js";
import { policyKey } from "../../core/policy/key.js";
import { compileCandidateText } from "../../core/policy/load.js";
import { candidateEvidence } from "../../core/verdict/evidence.js";
import { printErrors, printJson, withWorkspace, workspaceDir } from "../util/workspace.js";

function load(opts: { workspace?: string }, ref: string) {
  const dir = workspaceDir(opts);
  const session = candidateSession(dir);
  printErrors(session.candidateErrors);
  return { dir, session, target: candidateNamed(session, ref) };
}

/** `fire candidate revise|retire|promote`: the user's lifecycle decisions. */
export function registerCandidate(program: Command): void {
  const cmd = program.command("candidate").description("revise, retire or promote a candidate");

  withWorkspace(
    cmd
      .command("revise")
      .description("new identity (next version, supersedes the old, which stays)")
      .argument("<id>", "candidate id or id@version")
      .option("--from <file>", "the edited candidate (default: a copy of the old one to edit)")
      .option("--note <text>", "why it was revised", "revised"),
  ).action(async (ref: string, opts: { workspace?: string; from?: string; note: string }) => {
    const { dir, session, target } = load(opts, ref);
    let edited: import("../../core/policy/schema.js").Candidate | undefined;
    if (opts.from) {
      const r = compileCandidateText(readFileSync(opts.from, "utf8"), opts.from);
      if (!r.policy) {
        printErrors(r.errors);
        throw new UsageError(`${opts.from} is not a valid candidate`);
      }
      edited = r.policy.candidate;
    }
    const r = await revise(session, target, opts.note, edited ? { edited } : {});
    process.stdout.write(
      `${policyKey(r.candidate)} supersedes ${target.policy.key}: ${relative(dir, r.file)} (the old file stays${r.oldUpdated ? ", its history notes the revision" : ", frozen and untouched"})\n`,
    );
  });

  withWorkspace(
    cmd
      .command("retire")
      .description("retire a candidate (kept on disk, status retired)")
      .argument("<id>", "candidate id or id@version")
      .requiredOption("--reason <text>", "why it is retired"),
  ).action(async (ref: string, opts: { workspace?: string; reason: string }) => {
    const { session, target } = load(opts, ref);
    await retire(session, target, opts.reason);
    process.stdout.write(`retired ${target.policy.key}: ${opts.reason}\n`);
  });

  withWorkspace(
    cmd
      .command("promote")
      .description("promote a draft to screening")
      .argument("<id>", "candidate id or id@version")
      .option("--note <text>", "a note for the history", ""),
  ).action(async (ref: string, opts: { workspace?: string; note: string }) => {
    const { session, target } = load(opts, ref);
    await promote(session, target, opts.note);
    process.stdout.write(`promoted ${target.policy.key} to screening\n`);
  });

  withWorkspace(
    cmd
      .command("verdict")
      .description("the suggested verdict from its replay and run screens, with the evidence")
      .argument("<id>", "candidate id or id@version")
      .option("--json", "print as JSON"),
  ).action(async (ref: string, opts: { workspace?: string; json?: boolean }) => {
    const { dir, target } = load(opts, ref);
    const ev = await candidateEvidence(dir, target);
    if (opts.json) {
      printJson({
        policy: ev.policy,
        status: target.candidate.status,
        suggested: ev.suggested,
        runs: ev.runs.map((r) => r.name),
      });
      return;
    }
    process.stdout.write(
      `${ev.policy} (${target.candidate.status}): ${ev.suggested.verdict}\n${ev.suggested.evidence.map((e) => `  - ${e}`).join("\n")}\n`,
    );
  });
}
