import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";

let memo: Promise<string> | undefined;

/**
 * A hash of the code that shapes parsed attempts: the importers (`core/ingest/`) and
 * the model (`core/model/`). It is part of every parse-cache key, so entries written
 * by another version of fire are never served. Read once per process (~20 small files).
 */
export function parserCodeStamp(): Promise<string> {
  memo ??= (async () => {
    const h = createHash("sha256");
    for (const folder of ["../ingest/", "../model/"]) {
      const dir = fileURLToPath(new URL(folder, import.meta.url));
      let names: string[] = [];
      try {
        names = (await readdir(dir)).filter((n) => [".js", ".ts"].includes(extname(n))).sort();
      } catch {
        h.update(`${folder}:missing\n`);
      }
      for (const name of names) {
        h.update(`${folder}${name}\n`);
        h.update(await readFile(`${dir}${name}`));
      }
    }
    return h.digest("hex").slice(0, 16);
  })();
  return memo;
}
