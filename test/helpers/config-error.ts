import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../../src/core/errors.js";
import { loadConfig } from "../../src/core/workspace/config.js";

/**
 * Writes `text` as `dir/fire.config.json` and returns the InputError that loading it must
 * raise; fails the test when the config loads, or when it throws anything else.
 */
export async function configError(dir: string, text: string): Promise<InputError> {
  await writeFile(join(dir, "fire.config.json"), text);
  try {
    await loadConfig(dir);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error("loadConfig accepted a bad config");
}
