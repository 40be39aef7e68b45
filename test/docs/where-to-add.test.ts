import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * ARCHITECTURE.md's "Where to add" table, counted on the tree. For each kind of thing, every
 * existing instance (each importer, detector, workbench screen, condition atom) is looked up
 * in the source: the files that name it (its id as a string, its module's import, its key).
 * The table must state the range of those counts over all instances, and list exactly the
 * files every instance is named in (the instance's own module written as a placeholder): a
 * new instance needs at least those. When a change adds a place that every format, detector,
 * screen or atom must be named in, or removes one, this fails until the table says so.
 */
const SRC = join(REPO_ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(c?ts|tsx)$/.test(e.name) ? [p] : [];
  });
}
const FILES = sourceFiles(SRC).map((f) => ({
  path: relative(SRC, f),
  text: readFileSync(f, "utf8"),
}));
const read = (p: string) => readFileSync(join(SRC, p), "utf8");
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Instance {
  name: string;
  /** Any of these in a file names the instance there. */
  patterns: RegExp[];
  /** The instance's own module(s), written as the table's placeholder. */
  own: (path: string) => boolean;
}
interface Kind {
  row: string;
  /** Folders (under src/) searched. */
  roots: string[];
  placeholder: string;
  instances: () => Instance[];
}

const KINDS: Kind[] = [
  {
    row: "a trace format",
    roots: ["core/"],
    placeholder: "core/ingest/<format>.ts",
    instances: () =>
      [...read("core/ingest/registry.ts").matchAll(/import \{ \w+ \} from "\.\/([\w-]+)\.js"/g)]
        .map((m) => m[1] as string)
        .filter((mod) => /format: "/.test(read(`core/ingest/${mod}.ts`)))
        .map((mod) => {
          const format = /format: "([\w-]+)"/.exec(read(`core/ingest/${mod}.ts`))![1]!;
          return {
            name: format,
            patterns: [new RegExp(`"${esc(format)}"`), new RegExp(`/${esc(mod)}\\.js"`)],
            own: (p) => new RegExp(`^core/ingest/${esc(mod)}(-[\\w-]+)?\\.ts$`).test(p),
          };
        }),
  },
  {
    row: "a detector",
    roots: ["core/", "llm/"],
    placeholder: "core/mine/detectors/<id>.ts",
    instances: () =>
      [...read("core/mine/detectors/index.ts").matchAll(/from "\.\/([\w-]+)\.js"/g)]
        .map((m) => m[1] as string)
        .filter((mod) => /\bid: "/.test(read(`core/mine/detectors/${mod}.ts`)))
        .map((mod) => {
          const ids = [...read(`core/mine/detectors/${mod}.ts`).matchAll(/\bid: "([\w.-]+)"/g)];
          return {
            name: mod,
            patterns: [
              ...ids.map((m) => new RegExp(`"${esc(m[1]!)}"`)),
              new RegExp(`/${esc(mod)}\\.js"`),
            ],
            own: (p) => p === `core/mine/detectors/${mod}.ts`,
          };
        }),
  },
  {
    row: "a workbench screen",
    roots: ["ui/"],
    placeholder: "ui/screens/<Name>Screen.tsx",
    instances: () =>
      [...read("ui/contexts/screens.ts").matchAll(/\{ id: "(\w+)", key:/g)].map((m) => {
        const id = m[1]!;
        const component = `${id[0]!.toUpperCase()}${id.slice(1)}Screen`;
        return {
          name: id,
          patterns: [
            new RegExp(`\\b${component}\\b`),
            new RegExp(`"${id}"`),
            new RegExp(`^\\s*${id}:`, "m"),
          ],
          own: (p) => p === `ui/screens/${component}.tsx`,
        };
      }),
  },
  {
    row: "a condition atom",
    roots: ["core/policy/", "core/draft/llm-drafter.ts"],
    placeholder: "",
    instances: () => {
      const schema = JSON.parse(
        readFileSync(join(REPO_ROOT, "schema/candidate.schema.json"), "utf8"),
      ) as { $defs: { Condition: { properties: Record<string, unknown> } } };
      // Atoms whose names are also event fields or plain words (kind, tool, text, all, …)
      // cannot be told apart from those by a text search; the rest can.
      const common = new Set(
        "kind role tool command input output text writes all any not count steps status flag".split(
          " ",
        ),
      );
      return Object.keys(schema.$defs.Condition.properties)
        .filter((a) => !common.has(a))
        .map((a) => ({
          name: a,
          patterns: [new RegExp(`\\b${a}\\??:`), new RegExp(`"${a}"`), new RegExp(`\\.${a}\\b`)],
          own: () => false,
        }));
    },
  },
];

function namedIn(kind: Kind, inst: Instance): string[] {
  return FILES.filter((f) => kind.roots.some((r) => f.path.startsWith(r)))
    .filter((f) => inst.patterns.some((p) => p.test(f.text)))
    .map((f) => (inst.own(f.path) ? kind.placeholder : f.path));
}

/** The table's row for `thing`: its cells. */
function row(thing: string): string[] {
  const text = readFileSync(join(REPO_ROOT, "ARCHITECTURE.md"), "utf8");
  const line = text.split("\n").find((l) => l.startsWith(`| ${thing} |`));
  if (!line) throw new Error(`ARCHITECTURE.md has no "Where to add" row for ${thing}`);
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());
}

describe("ARCHITECTURE.md: where to add, counted", () => {
  for (const kind of KINDS) {
    it(`${kind.row}: the stated count and the files every one is named in`, () => {
      const instances = kind.instances();
      expect(instances.length).toBeGreaterThan(2);
      const sets = instances.map((i) => new Set(namedIn(kind, i)));
      const counts = sets.map((s) => s.size);
      const min = Math.min(...counts);
      const max = Math.max(...counts);
      const every = [...sets[0]!].filter((f) => sets.every((s) => s.has(f))).sort();
      const [, files, where] = row(kind.row);
      const stated = min === max ? `${min}` : `${min}–${max}`;
      const detail = instances.map((i, n) => `${i.name} ${counts[n]}`).join(", ");
      expect(files, `files per instance: ${detail}`).toMatch(new RegExp(`^${stated}\\b`));
      const listed = [...where!.matchAll(/`([^`]+)`/g)]
        .map((m) => m[1]!)
        .filter((p) => !p.startsWith("docs/") && !p.startsWith("schema/"))
        .sort();
      expect(listed, `files every ${kind.row.slice(2)} is named in`).toEqual(
        every.filter((f) => f !== "").sort(),
      );
      // the documents the row names exist
      for (const doc of [...where!.matchAll(/`((?:docs|schema)\/[^`]+)`/g)].map((m) => m[1]!)) {
        expect(existsSync(join(REPO_ROOT, doc)), doc).toBe(true);
      }
    });
  }
});
