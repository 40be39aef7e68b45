import { parserCodeStamp } from "./code-stamp.js";
import type { FireConfig } from "./config.js";

/** The ingest options that shape parsed attempts, as one key (parse cache, index). */
export async function parseOptionsKey(config: FireConfig): Promise<string> {
  return JSON.stringify({
    p: config.passThreshold,
    c: config.outputCap,
    ...(config.rewardKey ? { r: config.rewardKey } : {}),
    ...(config.taskDirs?.length ? { t: config.taskDirs } : {}),
    code: await parserCodeStamp(),
  });
}
