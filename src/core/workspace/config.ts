import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { lock } from "proper-lockfile";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { InputError } from "../errors.js";
import { RunSettings } from "../screening/run/settings.js";
import { VerdictsConfig } from "../verdict/thresholds.js";
import { workspacePaths } from "./paths.js";

/** USD per million tokens, used to turn reported usage into a cost. */
export const LlmPricing = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  /** Batch API rates; default: half the live rates (the Batch API bills half). */
  batchInputPerMTok: z.number().nonnegative().optional(),
  batchOutputPerMTok: z.number().nonnegative().optional(),
});

/**
 * LLM settings (no secrets here: the key comes from OPENAI_API_KEY). This is the one
 * definition: src/llm/config.ts reads the same shape (non-strict there), so the defaults
 * below ARE the client's defaults.
 */
export const LlmConfig = z.strictObject({
  model: z.string().min(1).default("gpt-4o-mini"),
  baseUrl: z.string().url().optional(),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Per-attempt client timeout until the response headers arrive (the SDK's `timeout`). */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Total deadline of one request: every retry, wait and the whole body (slow servers). */
  requestDeadlineMs: z.number().int().positive().default(180_000),
  /**
   * Largest response body of one chat completion, counted while it streams in: a longer one
   * is cut off and the attempt fails saying so (batch files may be 64 times larger).
   */
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  /** Wall-clock budget of a whole run (mine, draft, suggest); stops cleanly when reached. */
  maxRunMs: z.number().int().positive().default(1_800_000),
  /** Budget: HTTP requests, tokens (prompt + completion), dollars per run. */
  maxRequests: z.number().int().nonnegative().default(500),
  maxTokens: z.number().int().nonnegative().default(2_000_000),
  maxDollars: z.number().nonnegative().default(5),
  /** Retries after the first try (the SDK's: 408, 409, 429, 5xx, timeouts, `x-should-retry`). */
  maxRetries: z.number().int().min(0).max(10).default(3),
  /** Backoff is the SDK's; a server's `retry-after` is honoured up to maxBackoffMs. */
  backoffMs: z.number().int().nonnegative().default(1_000),
  maxBackoffMs: z.number().int().nonnegative().default(30_000),
  /**
   * Hard budget for the attempt-specific prompt (estimated tokens):
   * min(maxPromptTokens, max(minPromptTokens, promptShare × full attempt tokens)).
   * The floor lets a short attempt be shown whole (task, every event, the verifier): cutting
   * a 16-event trace to 800 tokens hid the task's decisive sentence and the agent's own
   * words. On real corpora these defaults send 0.15–0.19 of the trace tokens (docs/mining.md).
   */
  maxPromptTokens: z.number().int().min(100).default(8_000),
  promptShare: z.number().positive().max(1).default(0.2),
  minPromptTokens: z.number().int().min(100).default(2_000),
  maxOutputTokens: z.number().int().positive().default(1_200),
  /** Overrides the built-in price list (unknown models cost 0 otherwise). */
  pricing: LlmPricing.optional(),
  /** Batch mode: how often to poll the batch status. */
  batchPollMs: z.number().int().positive().default(15_000),
  /**
   * Whether the LLM labeller names a mechanism that no detector reads in the trace (the
   * model's reading alone). Off by default: such a label stays in scope for review with the
   * mechanism the model suspected; see docs/mining.md "Two readings".
   */
  nameUncorroborated: z.boolean().default(false),
});

/** Failure mining settings. */
export const MiningConfig = z.strictObject({
  /** Output substrings that mark a verifier (not agent) fault; such failures are excluded. */
  verifierFaultMarkers: z.array(z.string().min(1)).default([]),
  /** Tool-output / agent-turn substrings that mark an environment or provider fault (added to the built-in ones). */
  environmentFaultMarkers: z.array(z.string().min(1)).default([]),
  /** Similarity at or above which two labelled mechanisms join one cluster. */
  clusterThreshold: z.number().min(0).max(1).default(0.6),
  /**
   * Evidence strength at or above which the heuristic labeller names a mechanism (docs/mining.md
   * "Evidence kinds and strength"); below it a failure stays in scope as needs review.
   */
  nameThreshold: z.number().int().min(1).max(5).default(2),
});

/** Screening and attribution-panel settings. */
export const ScreenConfig = z.strictObject({
  replicates: z.number().int().positive().default(2),
  seed: z.number().int().default(1),
  bootstrapResamples: z.number().int().positive().default(10_000),
  permutationFlips: z.number().int().positive().default(100_000),
  /** How the workbench runs a screen that was never run (`fire screen run` flags as data). */
  run: RunSettings.optional(),
});

/** `fire.config.json`: strict, every key optional with a default. */
export const FireConfig = z.strictObject({
  $schema: z.string().optional(),
  /** Paths or globs, relative to the workspace (absolute allowed). */
  sources: z.array(z.string().min(1)).default(["traces/"]),
  /** Reward at or above which a verifier result counts as a pass. */
  passThreshold: z.number().min(0).default(1.0),
  /**
   * Key of a Harbor `rewards` dict that scores a trial (default: `reward`, else the only key),
   * or keys in order of preference: the first one a trial's dict has scores it (a corpus whose
   * verifiers name their score differently).
   */
  rewardKey: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** Max characters kept of any event output. */
  outputCap: z.number().int().positive().default(8_000),
  /**
   * Folders of task folders, relative to the workspace (absolute allowed), e.g. a clone of the
   * benchmark's task repository: a trial that keeps no task text (an agent with no trajectory
   * under a task fetched from git) reads `<folder>/<task>/instruction.md`.
   */
  taskDirs: z.array(z.string().min(1)).optional(),
  llm: LlmConfig.prefault({}),
  mining: MiningConfig.prefault({}),
  verdicts: VerdictsConfig.prefault({}),
  screen: ScreenConfig.prefault({}),
});
export type FireConfig = z.infer<typeof FireConfig>;
export type FireConfigInput = z.input<typeof FireConfig>;

/** The configuration of a workspace without a config file. */
export function defaultConfig(): FireConfig {
  return FireConfig.parse({});
}

/** 1-based line of the first occurrence of `"key"` in the text, if any. */
function lineOfKey(text: string, key: string): number | undefined {
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return undefined;
  let line = 1;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Validates config text; throws InputError naming the file, line and key. */
export function parseConfig(text: string, file: string): FireConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `invalid JSON: ${(err as Error).message}`);
  }
  const r = FireConfig.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => [...path, k].join("."));
    const line = lineOfKey(text, issue.keys[0]!);
    const s = keys.length > 1 ? "s" : "";
    return failWith(file, line, `unknown key${s} ${keys.map((k) => `"${k}"`).join(", ")}`);
  }
  const last = path[path.length - 1];
  const line = last === undefined ? undefined : lineOfKey(text, last);
  const where = path.length ? `"${path.join(".")}"` : "the config";
  return failWith(file, line, `${where}: ${issue.message}`);
}

function failWith(file: string, line: number | undefined, message: string): never {
  throw new InputError(file, line, message);
}

/** Reads `<dir>/fire.config.json`; a missing file gives the defaults. */
export async function loadConfig(dir: string): Promise<FireConfig> {
  const file = workspacePaths(dir).config;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return defaultConfig();
    throw new InputError(file, undefined, `cannot read: ${(err as Error).message}`);
  }
  return parseConfig(text, file);
}

/**
 * Writes the config atomically. It is validated first, so a bad config never reaches
 * disk; the object is written as given (defaults are not expanded into the file).
 */
export async function saveConfig(dir: string, cfg: FireConfigInput): Promise<void> {
  const file = workspacePaths(dir).config;
  const text = `${JSON.stringify(cfg, null, 2)}\n`;
  parseConfig(text, file);
  await writeFileAtomic(file, text);
}

/**
 * Read-modify-write of the raw config object under a lock, so keys the user wrote are
 * kept as written and two concurrent updates do not lose each other's change.
 */
export async function updateConfig(
  dir: string,
  change: (raw: FireConfigInput) => FireConfigInput,
): Promise<FireConfig> {
  const paths = workspacePaths(dir);
  await mkdir(paths.state, { recursive: true });
  const release = await lock(paths.state, {
    lockfilePath: join(paths.state, "config.lock"),
    retries: { retries: 20, minTimeout: 20, maxTimeout: 200 },
  });
  try {
    let raw: FireConfigInput = {};
    try {
      const text = await readFile(paths.config, "utf8");
      parseConfig(text, paths.config);
      raw = JSON.parse(text) as FireConfigInput;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const next = change(raw);
    await saveConfig(dir, next);
    return FireConfig.parse(next);
  } finally {
    await release();
  }
}
