import { relative } from "node:path";
import type { Command } from "commander";
import { candidateNamed, freeze, sessionOf } from "../../core/app/index.js";
import { UsageError } from "../../core/errors.js";
import { print, printErr } from "../util/out.js";
import { openWorkspace, printErrors, printJson, withWorkspace } from "../util/workspace.js";

interface FreezeOpts {
  workspace?: string;
  name: string;
  force?: boolean;
  reason?: string;
  json?: boolean;
}

/** `fire freeze --name NAME CANDIDATE…`: a frozen, hashed portfolio under portfolios/NAME/. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("freeze")
      .description(
        "freeze screened candidates into portfolios/<name>/ (refuses without a promising screen and an acceptable routing audit)",
      )
      .argument("<candidates...>", "candidate ids or id@version")
      .requiredOption("--name <name>", "portfolio name")
      .option("--force", "freeze despite missing evidence (needs --reason, recorded)")
      .option("--reason <text>", "why --force is justified")
      .option("--json", "print {ok, dir, manifest} or {ok: false, refused} as JSON"),
  ).action(async (refs: string[], opts: FreezeOpts) => {
    if (opts.force && !opts.reason?.trim()) throw new UsageError("--force needs --reason");
    const ws = await openWorkspace(opts);
    const session = await sessionOf(ws);
    printErrors(session.candidateErrors);
    const chosen = refs.map((r) => candidateNamed(session, r));
    const r = await freeze(session, chosen, {
      name: opts.name,
      ...(opts.force ? { force: opts.reason ?? "" } : {}),
    });
    if (opts.json) {
      printJson(
        r.ok
          ? { ok: true, dir: relative(ws.dir, r.dir), manifest: r.manifest }
          : { ok: false, refused: r.refused },
      );
      if (!r.ok) process.exitCode = 1;
      return;
    }
    if (!r.ok) {
      printErr("fire: refusing to freeze:\n");
      for (const x of r.refused) for (const m of x.missing) printErr(`  ${x.policy}: ${m}\n`);
      printErr("(screen them, or pass --force --reason TEXT to record an exception)\n");
      process.exitCode = 1;
      return;
    }
    print(
      `froze ${r.manifest.policies.length} polic(ies) into ${relative(ws.dir, r.dir)} (manifest ${r.manifest.manifestHash.slice(0, 12)})` +
        (r.manifest.forced.length
          ? `; forced: ${r.manifest.forced.map((f) => f.policy).join(", ")}`
          : "") +
        "\n`fire hook` without --portfolio now uses the newest frozen portfolio of this workspace\n",
    );
  });
}
