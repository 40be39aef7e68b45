import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fireIn, runFire } from "../helpers/cli.js";
import { SCREEN_FIXTURES } from "../helpers/screens.js";

/**
 * `--json` on the commands that print a result: each is called through the CLI (in-process;
 * `screen run` and `hook …` spawn the built one, as their commands name it), its stdout
 * parsed as one JSON document and the fields checked against what happened on disk.
 */
let ws: string;
/** `hook uninstall|doctor` take no workspace; every other command here gets `-w`. */
const spawned = (args: string[]) =>
  runFire(args[0] === "hook" && args[1] !== "install" ? args : [...args, "-w", ws]);
const fire = async (args: string[]) =>
  args[0] === "hook" || args[1] === "run" ? spawned(args) : fireIn([...args, "-w", ws]);
const json = async <T>(args: string[], status = 0): Promise<T> => {
  const r = await fire([...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(status);
  return JSON.parse(r.stdout) as T;
};
const candidateFile = () => join(ws, "candidates/report-check.yaml");

beforeAll(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-json-output-"));
  await mkdir(join(ws, "candidates"));
  const text = await readFile(join(SCREEN_FIXTURES, "candidates/report-check.yaml"), "utf8");
  await writeFile(candidateFile(), text);
});
afterAll(() => rm(ws, { recursive: true, force: true }));

describe("fire screen plan|run|import|status --json", () => {
  it("plan prints the plan's shape and hashes; status agrees with it", async () => {
    const p = await json<{
      name: string;
      file: string;
      tasks: number;
      cohorts: Record<string, number>;
      arms: string[];
      attempts: number;
      cells: number;
      seed: number;
      hashes: { plan: string; tasks: string; schedule: string };
    }>([
      "screen",
      "plan",
      "--candidate",
      candidateFile(),
      "--tasks",
      join(SCREEN_FIXTURES, "standin-tasks-small.txt"),
      "--arms",
      "baseline,policy",
      "--attempts",
      "1",
      "--seed",
      "7",
      "--name",
      "js",
    ]);
    expect(p).toMatchObject({
      name: "js",
      file: join(ws, "screens/js/plan.json"),
      tasks: 2,
      cohorts: { eligible: 1, silent: 1 },
      arms: ["baseline", "policy"],
      attempts: 1,
      cells: 4,
      seed: 7,
    });
    const onDisk = JSON.parse(await readFile(p.file, "utf8")) as { hashes: { plan: string } };
    expect(p.hashes.plan).toBe(onDisk.hashes.plan);
    const s = await json<{ planned: boolean; tasks: number; cells: number; arms: string[] }>([
      "screen",
      "status",
      "js",
    ]);
    expect(s).toMatchObject({ planned: true, tasks: 2, cells: 4, arms: ["baseline", "policy"] });
  });

  it("run prints the run summary (progress stays on stderr)", async () => {
    const run = ["screen", "run", "js", "--runner", "local", "--command", "true", "--json"];
    const r = await fire(run);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      name: "js",
      total: 4,
      done: 4,
      failed: 0,
      skipped: 0,
      aborted: false,
      errors: [],
    });
    const again = JSON.parse((await fire(run)).stdout) as { skipped: number; done: number };
    expect(again).toMatchObject({ done: 4, skipped: 4 });
  });

  it("import prints counts and the bad rows, and exits 1 when rows were skipped", async () => {
    const ok = await json<Record<string, unknown>>([
      "screen",
      "import",
      "t9",
      join(SCREEN_FIXTURES, "table9-sol.csv"),
    ]);
    expect(ok).toMatchObject({
      name: "t9",
      read: 42,
      added: 42,
      replaced: 0,
      total: 42,
      unscorable: 0,
      errors: [],
      resultsFile: join(ws, "screens/t9/results.jsonl"),
    });
    const bad = await fire([
      "screen",
      "import",
      "mixed",
      join(SCREEN_FIXTURES, "with-bad-rows.csv"),
      "--json",
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe("");
    const out = JSON.parse(bad.stdout) as {
      errors: { file: string; line: number; message: string }[];
      added: number;
    };
    expect(out.errors.map((e) => e.line)).toEqual(expect.arrayContaining([4, 5]));
    expect(out.errors[0]?.file).toContain("with-bad-rows.csv");
    expect(out.added).toBeGreaterThan(0);
  });

  it("report --json carries the arms and contrasts of the imported rows", async () => {
    const rep = await json<{ arms: Record<string, unknown>; contrasts: { nTasks: number }[] }>([
      "report",
      "t9",
    ]);
    expect(Object.keys(rep.arms).sort()).toEqual(["baseline", "policy"]);
    expect(rep.contrasts.some((c) => c.nTasks === 7)).toBe(true);
  });
});

describe("fire hook install|uninstall|doctor --json", () => {
  it("reports the settings file and whether it changed; doctor's findings", async () => {
    const project = join(ws, "proj");
    await mkdir(project);
    const base = ["--harness", "claude", "--project", project];
    const first = await json<{ harness: string; file: string; changed: boolean; notes: unknown[] }>(
      ["hook", "install", ...base, "--portfolio", candidateFile()],
    );
    expect(first).toMatchObject({
      harness: "claude",
      file: join(project, ".claude/settings.local.json"),
      changed: true,
    });
    expect(existsSync(first.file)).toBe(true);
    expect(Object.keys(first)).not.toContain("settings");
    const again = await json<{ changed: boolean }>([
      "hook",
      "install",
      ...base,
      "--portfolio",
      candidateFile(),
    ]);
    expect(again.changed).toBe(false);
    const d = await fire(["hook", "doctor", ...base, "--json"]);
    const doc = JSON.parse(d.stdout) as {
      harness: string;
      file: string;
      ok: boolean;
      findings: { level: string; text: string }[];
    };
    expect(doc.harness).toBe("claude");
    expect(doc.file).toBe(first.file);
    expect(doc.findings.length).toBeGreaterThan(0);
    expect(d.status).toBe(doc.ok ? 0 : 1);
    const gone = await json<{ changed: boolean; file: string }>(["hook", "uninstall", ...base]);
    expect(gone).toMatchObject({ changed: true, file: first.file });
    expect((await json<{ changed: boolean }>(["hook", "uninstall", ...base])).changed).toBe(false);
    const none = await fire(["hook", "doctor", ...base, "--json"]);
    expect(none.status).toBe(1);
    expect((JSON.parse(none.stdout) as { ok: boolean }).ok).toBe(false);
  });
});

describe("fire candidate …, freeze --json", () => {
  it("promote, verdict, revise, retire print what changed; the file agrees", async () => {
    expect(await json(["candidate", "promote", "report-check"])).toEqual({
      ok: true,
      policy: "report-check@1",
      status: "screening",
    });
    expect(await readFile(candidateFile(), "utf8")).toContain("status: screening");
    const v = await json<{ policy: string; status: string; suggested: { verdict: string } }>([
      "candidate",
      "verdict",
      "report-check",
    ]);
    expect(v).toMatchObject({ policy: "report-check@1", status: "screening" });
    const rev = await json<{ ok: boolean; policy: string; supersedes: string; file: string }>([
      "candidate",
      "revise",
      "report-check",
      "--note",
      "tighter",
    ]);
    expect(rev).toMatchObject({ ok: true, policy: "report-check@2", supersedes: "report-check@1" });
    expect(existsSync(join(ws, rev.file))).toBe(true);
    const ret = await json([
      "candidate",
      "retire",
      "report-check@2",
      "--reason",
      "superseded, with a comma",
    ]);
    expect(ret).toEqual({
      ok: true,
      policy: "report-check@2",
      status: "retired",
      reason: "superseded, with a comma",
    });
    expect(await readFile(join(ws, rev.file), "utf8")).toContain("status: retired");
  });

  it("freeze --json refuses an unscreened candidate with what is missing (exit 1)", async () => {
    const r = await fire(["freeze", "--name", "p", "report-check@1", "--json"]);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      refused: { policy: string; missing: string[] }[];
    };
    expect(out.ok).toBe(false);
    expect(out.refused[0]?.policy).toBe("report-check@1");
    expect(out.refused[0]?.missing.length).toBeGreaterThan(0);
  });
});
