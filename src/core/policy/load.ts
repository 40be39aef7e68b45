import { createRequire } from "node:module";
import { extname } from "node:path";
import { InputError, parseJsonText } from "../errors.js";
import { readRegularFile } from "../regular-file.js";
import { CompileError, compilePolicy } from "./compile.js";
import { candidateFiles } from "./files.js";
import { policyKey } from "./key.js";
import { unsafePatterns } from "./safety.js";
import { Candidate } from "./schema.js";
import type { CompiledPolicy } from "./types.js";

export { candidateFiles } from "./files.js";

type YamlModule = typeof import("yaml");
let yamlMod: YamlModule | undefined;
/** yaml is loaded only when a YAML file (or an error location) needs it. */
function yaml(): YamlModule {
  yamlMod ??= createRequire(import.meta.url)("yaml") as YamlModule;
  return yamlMod;
}

export interface LoadOptions {
  /** Skip the pattern-safety check (only for a hash-verified frozen portfolio). */
  skipSafety?: boolean;
}

export interface LoadResult {
  policies: CompiledPolicy[];
  errors: InputError[];
}

/** 1-based line of the node at `path` (or its nearest present ancestor), if findable. */
export function lineOf(text: string, path: ReadonlyArray<PropertyKey>): number | undefined {
  try {
    const { parseDocument, LineCounter } = yaml();
    const lc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lc });
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as (string | number)[], true) as
        | { range?: [number, number, number] }
        | undefined;
      if (node?.range) return lc.linePos(node.range[0]).line;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

const fieldName = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(top level)" : path.map(String).join(".");

function parse(text: string, file: string): unknown {
  if (extname(file) === ".json") {
    return parseJsonText(text, file);
  }
  const doc = yaml().parseDocument(text, { prettyErrors: true });
  const err = doc.errors[0];
  if (err)
    throw new InputError(
      file,
      err.linePos?.[0]?.line,
      `not valid YAML: ${err.message.split("\n")[0]}`,
    );
  try {
    // an alias bomb (billion laughs) stops at the alias limit instead of exhausting memory
    return doc.toJS({ maxAliasCount: YAML_MAX_ALIASES });
  } catch (e) {
    throw new InputError(file, undefined, `not valid YAML: ${(e as Error).message}`);
  }
}

/** Aliases a candidate may resolve; far above what a hand-written candidate needs. */
export const YAML_MAX_ALIASES = 50;

/** Validates, safety-checks and compiles one candidate file's text. */
export function compileCandidateText(
  text: string,
  file: string,
  opts: LoadOptions = {},
): { policy?: CompiledPolicy; errors: InputError[] } {
  let raw: unknown;
  try {
    raw = parse(text, file);
  } catch (e) {
    const err = e instanceof InputError ? e : new InputError(file, undefined, String(e));
    return { errors: [err] };
  }
  const r = Candidate.safeParse(raw);
  if (!r.success) {
    return {
      errors: r.error.issues
        .slice(0, 10)
        .map(
          (i) => new InputError(file, lineOf(text, i.path), `${fieldName(i.path)}: ${i.message}`),
        ),
    };
  }
  if (!opts.skipSafety) {
    const bad = unsafePatterns(r.data);
    if (bad.length > 0) {
      return {
        errors: bad.map(
          (b) => new InputError(file, lineOf(text, b.path), `${fieldName(b.path)}: ${b.reason}`),
        ),
      };
    }
  }
  try {
    return { policy: compilePolicy(r.data, file), errors: [] };
  } catch (e) {
    if (!(e instanceof CompileError)) throw e;
    return {
      errors: [new InputError(file, lineOf(text, e.path), `${fieldName(e.path)}: ${e.message}`)],
    };
  }
}

/** Reads and compiles one candidate file; an unreadable file is an error like a bad one. */
export function compileCandidateFile(
  file: string,
  opts: LoadOptions = {},
): { policy?: CompiledPolicy; errors: InputError[]; text?: string } {
  let text: string;
  try {
    text = readRegularFile(file, "utf8");
  } catch (e) {
    return { errors: [new InputError(file, undefined, `cannot read: ${(e as Error).message}`)] };
  }
  return { ...compileCandidateText(text, file, opts), text };
}

/**
 * Loads every candidate under the given files/directories. Bad files become errors
 * (file:line: field: expected …); good files around them still load. A second policy with
 * an id@version already loaded is an error.
 */
export function loadPolicies(paths: string[], opts: LoadOptions = {}): LoadResult {
  const policies: CompiledPolicy[] = [];
  const errors: InputError[] = [];
  const seen = new Map<string, string>();
  for (const root of paths) {
    let files: string[];
    try {
      files = candidateFiles(root);
    } catch (e) {
      errors.push(new InputError(root, undefined, `cannot read: ${(e as Error).message}`));
      continue;
    }
    for (const file of files) {
      const r = compileCandidateFile(file, opts);
      errors.push(...r.errors);
      if (!r.policy) continue;
      const key = policyKey(r.policy);
      const prev = seen.get(key);
      if (prev !== undefined) {
        errors.push(
          new InputError(
            file,
            lineOf(r.text ?? "", ["id"]),
            `id: ${key} is already defined in ${prev}`,
          ),
        );
        continue;
      }
      seen.set(key, file);
      policies.push(r.policy);
    }
  }
  return { policies, errors };
}
