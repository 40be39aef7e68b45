import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { looksLikeFireJsonl } from "../../src/core/ingest/fire-jsonl.js";
import { fireIn } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

let root: string;
let ws: string;
let exported: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "fire-cli-habits-"));
  ws = join(root, "ws");
  await mkdir(ws);
  expect(
    (await fireIn(["import", fixture("harbor-openclaw"), "--json", "--workspace", ws])).status,
  ).toBe(0);
  exported = (await fireIn(["export", "--workspace", ws])).stdout;
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** JSON as Python's `json.dumps` writes it by default: `", "` and `": "` separators. */
function pythonSpaced(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonSpaced).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pythonSpaced(x)}`);
    return `{${entries.join(", ")}}`;
  }
  return JSON.stringify(v);
}

describe("closed pipes", () => {
  it("`fire export` into a reader that closes early ends quietly with exit 0", async () => {
    // more than a pipe buffer, so the writer is still writing when the reader goes away
    expect(exported.length).toBeGreaterThan(256 * 1024);
    const child = spawn(
      process.execPath,
      [resolve(REPO_ROOT, "dist/cli/main.js"), "export", "--workspace", ws],
      {
        cwd: ws,
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    let stderr = "";
    let got = 0;
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.once("data", (d: Buffer) => {
      got = d.length;
      child.stdout.destroy(); // like `head` exiting after its first lines
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(got).toBeGreaterThan(0);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("fire JSONL detected by content", () => {
  it("imports fire JSONL re-written with another serializer's spacing", async () => {
    const lines = exported.trimEnd().split("\n");
    const spaced = lines.map((l) => pythonSpaced(JSON.parse(l))).join("\n");
    expect(spaced.startsWith('{"id": "')).toBe(true);
    const file = join(root, "spaced.jsonl");
    await writeFile(file, `${spaced}\n`);
    const ws2 = join(root, "ws-spaced");
    await mkdir(ws2);
    const imp = await fireIn(["import", file, "--json", "--workspace", ws2]);
    expect(JSON.parse(imp.stdout)).toEqual({
      attempts: lines.length,
      byFormat: { "harbor-trial": lines.length }, // each attempt keeps its source format
      errors: [],
    });
    const again = (await fireIn(["export", "--workspace", ws2])).stdout.trimEnd().split("\n");
    expect(again.map((l) => JSON.parse(l))).toEqual(lines.map((l) => JSON.parse(l)));
  });

  it("reads the first line, whatever its key order; a cut-off first line by its opening", async () => {
    expect(looksLikeFireJsonl('{"source": {"format": "claude"}, "id": "a"}\n{}')).toBe(true);
    expect(looksLikeFireJsonl('{ "id" : "a\\"b",\n')).toBe(false); // broken complete line
    expect(looksLikeFireJsonl('{ "id" : "a\\"b" , "source" : { "format" : "harb')).toBe(true);
    expect(looksLikeFireJsonl('{"id": "a", "source": "harbor"}\n')).toBe(false);
    expect(looksLikeFireJsonl('{"type":"user","sessionId":"s","message":{}}\n')).toBe(false);
    expect(looksLikeFireJsonl('[{"id": "a", "source": {"format": "x"}}]\n')).toBe(false);
  });
});

describe("fire show by any unique part of an id", () => {
  const ids = async (): Promise<string[]> => {
    const r = await fireIn(["attempts", "--json", "--workspace", ws]);
    return (JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id);
  };

  it("finds an attempt by a substring from the middle of its id", async () => {
    const all = await ids();
    // the shortest substring (not a prefix) that only one id contains
    let pick: { id: string; part: string } | undefined;
    for (const id of all) {
      for (let len = 4; len < id.length && !pick; len++) {
        for (let at = 1; at + len <= id.length; at++) {
          const part = id.slice(at, at + len);
          if (all.filter((x) => x.includes(part)).length === 1 && !id.startsWith(part)) {
            pick = { id, part };
            break;
          }
        }
      }
      if (pick) break;
    }
    expect(pick).toBeDefined();
    const r = await fireIn(["show", pick!.part, "--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }).id).toBe(pick!.id);
  });

  it("an ambiguous part is an error listing the matching ids", async () => {
    const all = await ids();
    // a character shared by several ids
    const part = [..."abcdefghijklmnopqrstuvwxyz0123456789-_"].find(
      (c) => all.filter((x) => x.includes(c)).length >= 2,
    )!;
    const matching = all.filter((x) => x.includes(part));
    const r = await fireIn(["show", part, "--workspace", ws]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`fire: ${part}: matches ${matching.length} attempts: `);
    for (const id of matching.slice(0, 10)) expect(r.stderr).toContain(id);
  });
});

describe("the README's way to run fire right after npm install", () => {
  it("`npm start -s -- ARGS` is the CLI, its --json output one document", () => {
    const r = spawnSync("npm", ["start", "-s", "--", "--json", "-w", ws], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout) as { attempts: number };
    expect(summary.attempts).toBe(15);
    const v = spawnSync("npm", ["start", "-s", "--prefix", REPO_ROOT, "--", "--version"], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(v.stdout).toBe("0.1.0\n");
  });
});
