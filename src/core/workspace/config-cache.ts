import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { InputError } from "../errors.js";
import { coreCodeStamp } from "./code-stamp.js";
import type { FireConfig } from "./config.js";
import { workspacePaths } from "./paths.js";
import { keyOf, readKeyed, writeKeyed } from "./stamped-cache.js";

/**
 * The workspace config for a read command's cached answer, without loading the config's
 * schema (the schema library alone costs a read command more than a bare `node` start).
 * `fire.config.json` is input from outside and always passes the schema (`parseConfig`); what
 * this keeps (`.fire/cache/config.json`, safe to delete) is the schema's OUTPUT for one exact
 * file content, under a key of those bytes' SHA-256 and the code of core/ (the schema and its
 * defaults). It is served only when the file's bytes hash to the key and the cache's own bytes
 * are the ones fire wrote (stamped-cache.ts); an edit, a new fire or a cache that does not
 * match its stamp goes through the schema again. So no config reaches a command unchecked.
 */
const VERSION = 1;

export async function cachedConfig(root: string): Promise<FireConfig> {
  const file = workspacePaths(root).config;
  let bytes: Buffer | undefined;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      throw new InputError(file, undefined, `cannot read: ${(err as Error).message}`);
  }
  const key = keyOf({
    code: coreCodeStamp(),
    file: bytes ? createHash("sha256").update(bytes).digest("hex") : null,
  });
  const cache = workspacePaths(root).configCache;
  const cached = readKeyed<FireConfig>(cache, VERSION, key);
  if (cached) return cached;
  const { defaultConfig, parseConfig } = await import("./config.js");
  const config = bytes ? parseConfig(bytes.toString("utf8"), file) : defaultConfig();
  if (jsonSafe(config)) await writeKeyed(cache, VERSION, key, config);
  return config;
}

/** Whether a value reads back from its JSON as the same value (plain data, finite numbers). */
function jsonSafe(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonSafe);
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v as object).every((x) => x !== undefined && jsonSafe(x));
  return false;
}
