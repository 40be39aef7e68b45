import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BadInputCorpus, makeBadInputCorpus } from "../helpers/bad-input.js";
import { runFire } from "../helpers/cli.js";

let corpus: BadInputCorpus;
let ws: string;
beforeAll(() => {
  corpus = makeBadInputCorpus();
  ws = mkdtempSync(join(tmpdir(), "fire-cli-bad-"));
});
afterAll(() => {
  corpus.cleanup();
  rmSync(ws, { recursive: true, force: true });
});

interface JsonError {
  file: string;
  line: number | null;
  message: string;
}

const noStack = (text: string): void => {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(text).not.toMatch(/\bError: /);
};

/** Every expected problem appears exactly once, and nothing else is reported. */
function expectEachOnce(errors: JsonError[]): void {
  for (const e of corpus.expected) {
    const hits = errors.filter(
      (r) => r.file === e.file && r.line === (e.line ?? null) && e.reason.test(r.message),
    );
    expect(hits, `${e.rel}:${e.line ?? ""} ${e.reason}`).toHaveLength(1);
  }
  expect(errors).toHaveLength(corpus.expected.length);
}

describe("fire import on the bad-input corpus", () => {
  it("--json: every problem once with file and line, every good attempt loaded, exit 0", () => {
    const r = runFire(["import", corpus.root, "--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { attempts: number; errors: JsonError[] };
    expect(out.attempts).toBe(corpus.goodAttempts);
    expectEachOnce(out.errors);
  });

  it("text: one `file:line: reason` line per problem on stderr, no stack trace", () => {
    const r = runFire(["import", corpus.root, "--workspace", ws]);
    expect(r.status).toBe(0);
    noStack(r.stderr);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(corpus.expected.length);
    for (const e of corpus.expected) {
      const prefix = `${e.file}${e.line === undefined ? "" : `:${e.line}`}: `;
      const hits = lines.filter(
        (l) => l.startsWith(prefix) && e.reason.test(l.slice(prefix.length)),
      );
      expect(hits, prefix).toHaveLength(1);
    }
    expect(r.stdout).toBe(
      `imported ${corpus.goodAttempts} attempts (${r.stdout.match(/\((.*)\)/)?.[1]}) from 1 path; ${corpus.expected.length} errors\n`,
    );
  });

  it("--strict exits 1 with the same report", () => {
    const r = runFire(["import", corpus.root, "--json", "--strict", "--workspace", ws]);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as { attempts: number; errors: JsonError[] };
    expect(out.attempts).toBe(corpus.goodAttempts);
    expectEachOnce(out.errors);
    noStack(r.stderr);
  });

  it("a reopened workspace (parse cache) reports the same problems once", () => {
    const r = runFire(["attempts", "--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(corpus.goodAttempts);
    expect(r.stderr).toBe(`${corpus.expected.length} input errors (run \`fire\` to see them)\n`);
    const summary = runFire(["--workspace", ws]);
    expect(summary.stdout).toContain(`  errors     ${corpus.expected.length}\n`);
  });
});
