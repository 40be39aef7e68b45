import { readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundleManifest } from "../core/deploy/bundle-manifest.js";
import { buildOneChunk } from "./bundle-standalone.js";
import { codeCachedScript } from "./code-cached-script.js";
import { importMetas } from "./script-ast.js";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const CLI_SCRIPT_FILE = "cli.script.cjs";
export const CLI_SCRIPT_MANIFEST_FILE = "cli.script.json";

/**
 * Packages the CLI script leaves to the ES module loader, and with them every module of fire's
 * that imports one statically. Some cannot be in a CommonJS script: ink (yoga-layout's
 * top-level await) with React, and openai, rolldown and failproofai are only for LLM calls,
 * the build and exports. The rest are heavy and off the hot paths: zod (95 modules), yaml,
 * the TOML, CSV and zip readers, the pattern checkers. With them inside, the script was 2.2 MB
 * and its code cache 0.5-1.2 MB; reading and deserializing those (~35 ms on this VM) cost
 * about what the ES module loader spent on the modules a warm read or decision loads, so the
 * script kept what those paths run (~85 modules, 0.3 MB): the cached answers of the read
 * commands and the kept-summary decisions. What reaches a package below (a cache miss, `fire
 * mine`, the screens, the workbench) is loaded from dist/ when it runs, as before.
 */
const OUTSIDE_PACKAGES =
  /^(ink|ink-[\w-]+|react|react-dom|react-reconciler|yoga-layout|openai|rolldown|failproofai|zod|yaml|smol-toml|csv-parse|csv-stringify|fflate|fuse\.js|recheck|regjsparser|regjsgen)(\/|$)/;

/**
 * The CLI (dist/cli/script-entry.js: `runCli` and what it loads, eagerly or lazily) as ONE
 * CommonJS script, `dist/cli/cli.script.cjs`, which the `fire` bin compiles with V8's code
 * cache like the hook's (`codeCachedScript`). Lazy imports stay lazy: rolldown runs a module
 * reached only by `import()` when that import runs. The modules that statically reach an
 * outside package (`OUTSIDE_PACKAGES`) stay ES modules in dist/, loaded through `__fireImport`
 * when a command needs them; they can only be reached lazily, or their importer would be one
 * of them. A module's `import.meta.url` becomes its own URL in dist/ (`__fireUrl`), so files
 * found next to it (the parse worker, the reference candidates, the code stamps' folders) are
 * found where they are. Modules in the script and in dist/ may both load (a cache miss loads
 * dist/'s copy of what the script holds): both are the same build, and fire's error classes
 * match across the copies (core/errors.ts).
 */
export async function bundleCliScript(
  outDir = join(DIST, "cli"),
): Promise<BundleManifest | undefined> {
  let parseAst: typeof import("rolldown/parseAst").parseAst;
  try {
    ({ parseAst } = await import("rolldown/parseAst"));
  } catch {
    return undefined; // no rolldown: no script, the bin runs the ES modules
  }
  const outside = modulesReaching(DIST, OUTSIDE_PACKAGES, parseAst);
  const chunk = await buildOneChunk("cli script", {
    input: join(DIST, "cli/script-entry.js"),
    format: "cjs",
    charset: "ascii",
    external: (id) => OUTSIDE_PACKAGES.test(id),
    plugin: {
      name: "cli-script",
      resolveId(id, importer) {
        if (!importer || !id.startsWith(".")) return null;
        const abs = resolve(dirname(importer), id);
        return outside.has(abs) ? { id: specFrom(outDir, abs), external: true } : null;
      },
      transform(code, id) {
        if (COMMANDER_COMMAND.test(id)) return lazyChildProcess(code, id);
        if (!isAbsolute(id) || !code.includes("import.meta")) return null;
        const url = `__fireUrl(${JSON.stringify(specFrom(outDir, id))})`;
        return replaceImportMetaUrl(code, parseAst(code), url, id);
      },
    },
  });
  if (!chunk) return undefined;
  const leftover = [...chunk.code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)]
    .map((m) => m[1] as string)
    .filter((spec) => !isBuiltin(spec));
  if (leftover.length > 0)
    throw new Error(`cli script: requires ${[...new Set(leftover)].join(", ")} eagerly`);
  if (importMetas(parseAst(chunk.code)).length > 0)
    throw new Error("cli script: an import.meta left");
  return codeCachedScript("cli", chunk, outDir, CLI_SCRIPT_FILE, CLI_SCRIPT_MANIFEST_FILE);
}

/** commander's Command module, which loads `node:child_process` for executable subcommands. */
const COMMANDER_COMMAND = /[\\/]commander[\\/]lib[\\/]command\.js$/;
const CHILD_PROCESS_REQUIRE = "const childProcess = require('node:child_process');";

/**
 * commander's command module with `node:child_process` loaded on first use: only an executable
 * subcommand spawns (fire has none), and loading the module at start cost every command ~5 ms
 * of a ~55 ms `node -e 0`. Fails the build when commander's line changes, so the rewrite never
 * silently stops applying.
 */
function lazyChildProcess(code: string, id: string): string {
  if (!code.includes(CHILD_PROCESS_REQUIRE))
    throw new Error(`cli script: ${id} no longer requires node:child_process as expected`);
  return code.replace(
    CHILD_PROCESS_REQUIRE,
    "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  );
}

/** `abs` as an import specifier relative to `dir` (`./x.js`, `../core/y.js`). */
function specFrom(dir: string, abs: string): string {
  const rel = relative(dir, abs).split(sep).join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/** `code` with each `import.meta.url` expression (found in its AST) replaced by `url`. */
function replaceImportMetaUrl(code: string, ast: unknown, url: string, id: string): string {
  let out = code;
  for (const [start, end, what] of importMetas(ast).sort((a, b) => b[0] - a[0])) {
    if (what !== "url" || out.slice(start, end) !== "import.meta.url")
      throw new Error(`cli script: import.meta.${what} at ${start} in ${id}`);
    out = out.slice(0, start) + url + out.slice(end);
  }
  return out;
}

/**
 * The compiled modules under `dist` whose static imports reach (directly or through other
 * modules) a package `packages` matches; read from each module's syntax tree (an import
 * statement inside a template is text, not an import).
 */
function modulesReaching(
  dist: string,
  packages: RegExp,
  parseAst: (code: string) => { body: unknown[] },
): Set<string> {
  const imports = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^[^.]+\.(js|cjs)$/.test(e.name)) imports.set(p, staticImports(parseAst, p));
    }
  };
  walk(dist);
  const reaching = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [file, specs] of imports) {
      if (reaching.has(file)) continue;
      const reaches = specs.some((spec) =>
        spec.startsWith(".") ? reaching.has(resolve(dirname(file), spec)) : packages.test(spec),
      );
      if (reaches) {
        reaching.add(file);
        grew = true;
      }
    }
  }
  return reaching;
}

/** The specifiers of a module's static `import … from` and `export … from` statements. */
function staticImports(parseAst: (code: string) => { body: unknown[] }, file: string): string[] {
  let body: unknown[];
  try {
    body = parseAst(readFileSync(file, "utf8")).body;
  } catch {
    return []; // not a module rolldown could bundle either
  }
  return body.flatMap((n) => {
    const node = n as { type: string; source?: { value?: unknown } | null };
    return /^(Import|ExportNamed|ExportAll)Declaration$/.test(node.type) &&
      typeof node.source?.value === "string"
      ? [node.source.value]
      : [];
  });
}
