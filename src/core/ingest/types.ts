import type { InputError } from "../errors.js";
import type { AttemptInput, SourceFormat } from "../model/attempt.js";

/** A reward key, or reward keys in order of preference. */
export type RewardKey = string | readonly string[];

/** Settings every importer receives. */
export interface IngestOptions {
  /** Reward at or above which a verifier result counts as a pass. */
  passThreshold: number;
  /** Max characters kept of any event output (full length goes to outputBytes). */
  outputCap: number;
  /**
   * Which key of a Harbor `rewards` dict scores the task (default `reward`, else the only key);
   * a list is an order of preference, the first key the dict has.
   */
  rewardKey?: RewardKey;
  /**
   * Folders of task folders (absolute): a trial that keeps no task text takes its task's
   * `instruction.md` from `<folder>/<task>/`, the task named by its config or its result.
   */
  taskDirs?: readonly string[];
  signal?: AbortSignal;
}

/** What an importer yields: attempts, and errors that never stop the rest from loading. */
export type IngestItem =
  | {
      type: "attempt";
      attempt: AttemptInput;
      /**
       * The attempt is already the output of the Attempt schema (fire JSONL validates each
       * record to report its line): the loader need not parse it a second time.
       */
      validated?: boolean;
    }
  | { type: "error"; error: InputError };

/**
 * One input format. `detect` decides by content (and, as a hint, by name);
 * `read` streams items and never throws for bad input: it yields errors instead.
 */
export interface Importer {
  readonly format: SourceFormat;
  /** `path` is a file or directory; `head` is the first ≤64 KiB of a file (empty for dirs). */
  detect(path: string, head: string, isDirectory: boolean): boolean | Promise<boolean>;
  /** For a binary format (a zip): whether this file head is one of its files. */
  detectBinary?(path: string, head: Buffer): boolean;
  read(path: string, options: IngestOptions): AsyncIterable<IngestItem>;
  /**
   * For an importer that reads files outside the unit (a report in a sibling folder, a run's
   * summary beside it): a stamp of those files as they are now (paths, sizes, mtimes), folded
   * into the unit's stamp so a file that appears or changes there re-reads the unit.
   */
  outsideStamp?(path: string): string;
  /**
   * Whether a file that is no unit belongs to this format's layout all the same (a run's own
   * summary beside its trial folders): discovery passes it over without an error.
   */
  sideFile?(path: string, head: string): boolean;
}

export const DEFAULT_INGEST_OPTIONS: IngestOptions = { passThreshold: 1.0, outputCap: 8_000 };
