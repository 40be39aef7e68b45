import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** Every file under `dir`, relative path → sha256 of its bytes. */
export async function treeHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else
        out.set(
          relative(dir, p),
          createHash("sha256")
            .update(await readFile(p))
            .digest("hex"),
        );
    }
  };
  await walk(dir);
  return out;
}

export async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  return [...(await treeHashes(dir)).keys()]
    .filter((p) => p.endsWith(suffix))
    .map((p) => join(dir, p));
}
