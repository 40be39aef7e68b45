import { basename, dirname, join } from "node:path";
import { isFile } from "./fs-util.js";
import { filesStamp } from "./stamp.js";

/**
 * Where a checkpoint folder's reader looks outside it, kept free of the importers' schemas:
 * a warm read asks for the stamp on every command (`knownUnits`), without loading an importer.
 */

/** The evaluation of the checkpoint before this one (`checkpoint_<N-1>` beside it), if any. */
export function previousEvaluation(dir: string): string | undefined {
  const m = /^(.*?)(\d+)$/.exec(basename(dir));
  const n = m ? Number(m[2]) : Number.NaN;
  if (!m || !(n > 1)) return undefined;
  const file = join(dirname(dir), `${m[1]}${n - 1}`, "evaluation.json");
  return isFile(file) ? file : undefined;
}

/** The stamp of what a checkpoint's reader reads outside it: the previous checkpoint's verdict. */
export function checkpointOutsideStamp(dir: string): string {
  const before = previousEvaluation(dir);
  return filesStamp(before ? [before] : []);
}
