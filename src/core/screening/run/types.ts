import type { HookInstaller } from "./hook.js";

export interface RunProgress {
  /** Units finished (done or failed), including ones skipped from an earlier run. */
  done: number;
  total: number;
  /** Units found finished by an earlier run. */
  skipped: number;
  unit?: string;
  /** `trials`: Harbor's own progress of the running unit's job (its result.json). */
  event: "start" | "skip" | "done" | "failed" | "trials";
  message?: string;
}

export interface RunCommon {
  workspace: string;
  name: string;
  /** How to call fire itself (e.g. [node, dist/cli/fire.cjs]) in hook commands. */
  fireBin: readonly string[];
  /** Extra template variables (`--var key=value`). */
  vars?: Record<string, string>;
  concurrency?: number;
  timeoutMs?: number;
  installHook?: HookInstaller;
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
}

export interface RunSummary {
  total: number;
  done: number;
  failed: number;
  skipped: number;
  /** True when stopped by the signal: finished units are stored, the rest can resume. */
  aborted: boolean;
  errors: string[];
}
