import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is test/helpers/paths.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Real traces shared with the project: `<repo>/../shared/fixtures` (read-only). */
export const FIXTURES = resolve(REPO_ROOT, "../shared/fixtures");
export const fixture = (...parts: string[]): string => resolve(FIXTURES, ...parts);
