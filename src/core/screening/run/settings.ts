import { readFile } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../../errors.js";
import { screenPaths } from "../paths.js";

/**
 * How a run screen's agent trials are run: the `fire screen run` flags as data. The CLI
 * records what it ran with in `screens/<name>/run-settings.json`, so the workbench resumes
 * a run the same way; `screen.run` in fire.config.json gives the workspace's default for a
 * run started from the workbench.
 */
export const RunSettings = z.strictObject({
  runner: z.enum(["local", "harbor"]).default("local"),
  /** Command template (local: per trial, exit 0 = pass; harbor: the `harbor run` line). */
  command: z.string().min(1).optional(),
  /** Local: folder copied into each trial's fresh working copy. */
  copyFrom: z.string().min(1).optional(),
  concurrency: z.number().int().positive().default(2),
  /** Per trial (local) or per Harbor job. */
  timeoutS: z.number().int().positive().optional(),
  /** Template variables (`--var key=value`). */
  vars: z.record(z.string(), z.string()).default({}),
  harborBin: z.string().min(1).optional(),
  /** The agent whose hook settings each arm gets. */
  harness: z.enum(["claude", "codex"]).default("claude"),
  /** Harbor's `--env` (docker, daytona, modal, e2b, runloop, gke, …). */
  env: z.string().min(1).optional(),
  /** How the hook payload gets in: host mounts (local Docker only) or fire's Harbor adapter. */
  delivery: z.enum(["mounts", "adapter"]).optional(),
  /** The Harbor agent adapter file (default: the one shipped with fire). */
  adapter: z.string().min(1).optional(),
});
export type RunSettings = z.infer<typeof RunSettings>;
export type RunSettingsInput = z.input<typeof RunSettings>;

export function runSettingsFile(workspace: string, name: string): string {
  return join(screenPaths(workspace, name).dir, "run-settings.json");
}

/** The settings a screen was last run with; undefined before its first run. */
export async function readRunSettings(
  workspace: string,
  name: string,
): Promise<RunSettings | undefined> {
  const file = runSettingsFile(workspace, name);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  const r = RunSettings.safeParse(parseJsonText(text, file));
  if (!r.success) throw new InputError(file, undefined, describeZodIssues(r.error.issues));
  return r.data;
}

export async function writeRunSettings(
  workspace: string,
  name: string,
  settings: RunSettings,
): Promise<void> {
  await writeFileAtomic(runSettingsFile(workspace, name), `${JSON.stringify(settings, null, 2)}\n`);
}
