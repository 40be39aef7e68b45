import { createRequire } from "node:module";

/**
 * A Node built-in module without its ESM facade. An ESM `import … from "node:fs"` reads every
 * export of fs, whose lazy getters load the streams stack (~4 ms of a hook call), so modules
 * on the hook's path take built-ins from here: `process.getBuiltinModule` (Node ≥ 20.16),
 * else `createRequire`. No top-level await, so the hook can also be bundled as a CommonJS
 * script (see src/build/bundle.ts and src/cli/fire.cts).
 */
let fallback: NodeJS.Require | undefined;

export function builtin<T>(id: string): T {
  if (typeof process.getBuiltinModule === "function") return process.getBuiltinModule(id) as T;
  fallback ??= createRequire(import.meta.url);
  return fallback(id) as T;
}
