import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * `fire import` of the Inspect AI eval log fixtures through the built CLI: the sample count
 * and the scores come out as the log files themselves state them (their `results` header:
 * `total_samples` and the scorer's `accuracy`), read here straight from the files.
 */
const DIR = resolve(REPO_ROOT, "test/fixtures/inspect");
const EVAL = join(DIR, "2026-01-15T10-00-00+00-00_fix-tests_hV2nJ6kL9mP3qR5sT8uW1x.eval");
const JSON_LOG = join(DIR, "2026-01-15T11-00-00+00-00_word-count_bC6dE9fG2hJ5kL8mN1pQ4r.json");

interface Results {
  total_samples: number;
  scores: { name: string; metrics: { accuracy: { value: number } } }[];
}
interface Row {
  taskId: string;
  outcome: string;
  reward: number | null;
  format: string;
}

const evalHeader = (): Results =>
  (JSON.parse(strFromU8(unzipSync(readFileSync(EVAL))["header.json"]!)) as { results: Results })
    .results;
const jsonHeader = (): Results =>
  (JSON.parse(readFileSync(JSON_LOG, "utf8")) as { results: Results }).results;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

let ws: string;
beforeAll(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-import-inspect-"));
});
afterAll(() => rm(ws, { recursive: true, force: true }));

const importJson = async (file: string) => {
  const r = await fireIn(["import", file, "--json", "-w", ws]);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { attempts: number; byFormat: Record<string, number> };
};
const rowsOf = async (prefix: string): Promise<Row[]> => {
  const r = await fireIn(["attempts", "--json", "-w", ws]);
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as Row[]).filter((x) => x.taskId.startsWith(prefix));
};

describe("fire import of Inspect AI eval logs", () => {
  it(".eval: one attempt per sample and epoch, the mean reward is the file's accuracy", async () => {
    const header = evalHeader();
    const out = await importJson(EVAL);
    expect(out).toMatchObject({ attempts: header.total_samples, errors: [] });
    expect(out.byFormat).toEqual({ "inspect-eval": header.total_samples });
    const rows = await rowsOf("fix-tests/");
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.format === "inspect-eval")).toBe(true);
    const rewards = rows.map((r) => r.reward);
    expect(rewards.every((x) => x === 0 || x === 1)).toBe(true);
    expect(mean(rewards as number[])).toBeCloseTo(header.scores[0]!.metrics.accuracy.value, 12);
    expect(rows.filter((r) => r.outcome === "pass")).toHaveLength(3);
  });

  it(".json: an errored sample is an attempt with no reward; the scored ones give the accuracy", async () => {
    const header = jsonHeader();
    const out = await importJson(JSON_LOG);
    expect(out.attempts).toBe(header.total_samples);
    const rows = await rowsOf("word-count/");
    expect(rows).toHaveLength(2);
    const scored = rows.flatMap((r) => (r.reward === null ? [] : [r.reward]));
    expect(mean(scored)).toBeCloseTo(header.scores[0]!.metrics.accuracy.value, 12);
    expect(rows.map((r) => r.outcome).sort()).toEqual(["error", "pass"]);
  });
});
