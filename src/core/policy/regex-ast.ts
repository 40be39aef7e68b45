import type * as Module from "node:module";
import { builtin } from "../builtin.js";

/**
 * A regex syntax tree (regjsparser's AST: the parser Babel uses) and its printer
 * (regjsgen). Both are loaded on first use: only admission needs them, never the hook's
 * hot path, which compiles patterns already stored in their linear form.
 */
export interface Node {
  type: string;
  kind?: string;
  codePoint?: number;
  raw?: string;
  body?: Node[] | Node;
  min?: Node | number;
  max?: Node | number;
  negative?: boolean;
  [key: string]: unknown;
}

interface Lib {
  parse(source: string, flags: string, features?: Record<string, boolean>): Node;
  generate(node: Node): string;
}

let lib: Lib | undefined;

function load(): Lib {
  if (lib) return lib;
  // node:module only now (the hook never parses a pattern, so never loads it)
  const { createRequire } = builtin<typeof Module>("node:module");
  const req = createRequire(import.meta.url);
  const { parse } = req("regjsparser") as Pick<Lib, "parse">;
  const { generate } = req("regjsgen") as Pick<Lib, "generate">;
  lib = { parse, generate };
  return lib;
}

/** Parses a JavaScript pattern as `new RegExp(source, flags)` would (throws on bad syntax). */
export function parseRegex(source: string, flags: string): Node {
  return load().parse(source, flags.replace(/[^imsu]/g, ""), {
    namedGroups: true,
    lookbehind: true,
    unicodePropertyEscape: true,
  });
}

export function printRegex(node: Node): string {
  return load().generate(node);
}
