import { dirname } from "node:path";
import { diagnoseHook } from "../deploy/doctor.js";
import { installHook, uninstallHook } from "../deploy/install.js";
import type { Harness } from "../deploy/settings.js";
import type { HookInstaller } from "../screening/run/hook.js";

export type { DoctorReport } from "../deploy/doctor.js";
export type { HookTarget, InstallHookRequest, InstallReport } from "../deploy/install.js";
export type { Harness } from "../deploy/settings.js";
/**
 * The hook actions: `fire hook install|uninstall|doctor`, the workbench's Portfolio screen
 * (`i`/`u`) and the local screen runner all install through core/deploy/install.ts, composed
 * once there (settings file, hook command, Codex trust, what the hook evaluates).
 */
export { diagnoseHook, installHook, uninstallHook };

/** A harness name from the user, or undefined when it is neither `claude` nor `codex`. */
export function harnessNamed(name: string | undefined): Harness | undefined {
  return name === "claude" || name === "codex" ? name : undefined;
}

/**
 * `fire screen run --runner local`: installs each arm's hook into the attempt's fresh working
 * copy the way `fire hook install --project` does; baseline gets none (a copied one is
 * removed). Hook state stays in the trial folder, out of the copy.
 */
export function armHookInstaller(harness: Harness): HookInstaller {
  return async (hook, ctx) => {
    if (!ctx.workdir) return;
    const project = ctx.workdir;
    if (!hook.portfolio) uninstallHook({ harness, project });
    else
      installHook({
        harness,
        project,
        portfolio: hook.portfolio,
        log: hook.logFile,
        workspace: dirname(project),
      });
  };
}
