import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable regular file named `name` in `env.PATH`, as a shell would find it. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const f = join(dir, name);
    try {
      accessSync(f, constants.X_OK);
      if (statSync(f).isFile()) return f;
    } catch {
      // not here
    }
  }
  return undefined;
}
