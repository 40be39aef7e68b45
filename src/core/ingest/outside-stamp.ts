import type { SourceFormat } from "../model/attempt.js";
import { checkpointOutsideStamp } from "./checkpoint-paths.js";

/**
 * Outside stamps a warm read can take without loading the importers (their schemas and
 * readers are most of a read command's start): the formats whose reader names its outside
 * files by path alone. The rest ask their importer through the registry.
 */
const LIGHT: Partial<Record<SourceFormat, (path: string) => string>> = {
  "checkpoint-run": checkpointOutsideStamp,
};

/** The stamp of what the importer of `format` reads outside the unit at `path`, if anything. */
export async function outsideStampOf(
  format: SourceFormat,
  path: string,
): Promise<string | undefined> {
  const light = LIGHT[format];
  if (light) return light(path);
  return (await import("./registry.js")).outsideStamp(format, path);
}
