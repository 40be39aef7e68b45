import { readFile } from "node:fs/promises";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError } from "../../errors.js";

/** Resumable runner state (`screens/<name>/run-state.json`): finished units of work. */
export const RunState = z.strictObject({
  planHash: z.string(),
  runner: z.enum(["local", "harbor"]),
  units: z.record(
    z.string(),
    z.strictObject({
      status: z.enum(["done", "failed"]),
      at: z.string(),
      error: z.string().optional(),
      /** Recovery runs used for provider failures in this unit. */
      recoveries: z.number().int().nonnegative().optional(),
    }),
  ),
});
export type RunState = z.infer<typeof RunState>;

export async function readRunState(
  file: string,
  planHash: string,
  runner: RunState["runner"],
): Promise<RunState> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { planHash, runner, units: {} };
    throw new InputError(file, undefined, `unreadable run state: ${(err as Error).message}`);
  }
  const r = RunState.safeParse(raw);
  if (!r.success) throw new InputError(file, undefined, describeZodIssues(r.error.issues));
  if (r.data.planHash !== planHash) {
    throw new InputError(
      file,
      undefined,
      "run state belongs to a different plan; refusing to mix results",
    );
  }
  if (r.data.runner !== runner) {
    throw new InputError(
      file,
      undefined,
      `this screen was started with the ${r.data.runner} runner`,
    );
  }
  return r.data;
}

/** Serialises state writes: each write is atomic and they never interleave. */
export class StateWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(
    private readonly file: string,
    readonly state: RunState,
  ) {}

  mark(unit: string, entry: RunState["units"][string]): Promise<void> {
    this.state.units[unit] = entry;
    const text = `${JSON.stringify(this.state, null, 2)}\n`;
    this.chain = this.chain.then(() => writeFileAtomic(this.file, text));
    return this.chain;
  }
}
