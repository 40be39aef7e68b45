import type { Command } from "commander";
import { candidateNamed, replayScreen, sessionOf } from "../../core/app/index.js";
import { renderReplayScreen, withEvidence } from "../../core/app/present.js";
import { DEFAULT_SIZES } from "../../core/app/screens.js";
import { UsageError } from "../../core/errors.js";
import { print } from "../util/out.js";
import { openWorkspace, printErrors, printJson, withWorkspace } from "../util/workspace.js";

interface Opts {
  workspace?: string;
  json?: boolean;
  similar?: string;
  silent?: string;
}

function count(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

/** `fire screen replay CANDIDATE`: replay screen over stored policy-free attempts. */
export function registerScreenReplay(screen: Command): void {
  withWorkspace(
    screen
      .command("replay")
      .description(
        "replay screen: firing on the lineage's positives, nearby negatives and silent tasks; behaviour marker; suggested verdict",
      )
      .argument("<candidate>", "candidate id (newest version) or id@version")
      .option(
        "--similar <n>",
        "most similar non-positive tasks to include",
        String(DEFAULT_SIZES.similar),
      )
      .option("--silent <n>", "silent tasks to sample", String(DEFAULT_SIZES.silent))
      .option("--json", "print the screen as JSON"),
  ).action(async (ref: string, opts: Opts) => {
    const sizes = {
      similar: count(opts.similar, "similar", DEFAULT_SIZES.similar),
      silent: count(opts.silent, "silent", DEFAULT_SIZES.silent),
    };
    const session = await sessionOf(await openWorkspace(opts));
    printErrors(session.candidateErrors);
    const { screen, file } = await replayScreen(session, candidateNamed(session, ref), { sizes });
    if (opts.json) printJson({ ...screen, verdict: withEvidence(screen.verdict) });
    else print(`${renderReplayScreen(screen)}saved ${file}\n`);
  });
}
