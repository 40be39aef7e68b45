/**
 * AutoCodeRover (v1) results. The real fixture (test/fixtures/autocoderover, see its README)
 * is three trial folders of the paper's public runs with each run's SWE-bench report and the
 * harness's logs of the graded instances, laid out as published (`results/acr-run-N/…`).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { offeredNoRunner } from "../../../src/core/mine/detectors/shell.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { currentHead } from "../../../src/core/workspace/head.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { type Collected, collect } from "./collect.js";

const RESULTS = join(import.meta.dirname, "../../fixtures/autocoderover/results");
const PASSED = "acr-run-3/applicable_patch/django__django-12286_2024-04-04_18-51-15";
const FAILED = "acr-run-2/applicable_patch/django__django-12308_2024-04-04_14-16-49";
const UNMATCHED = "acr-run-1/raw_patch_but_unmatched/django__django-12286_2024-04-06_13-23-14";

const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");
const resultOf = (a: Attempt, callId: string | undefined) =>
  a.events.find((e) => e.kind === "tool_result" && e.callId === callId);
const json = async (path: string) => JSON.parse(await readFile(path, "utf8")) as unknown;

let all: Collected;
const trial = (rel: string): Attempt =>
  all.attempts.find((a) => a.source.path === join(RESULTS, rel)) ?? (undefined as never);

beforeAll(async () => {
  all = await collect([RESULTS]);
});

describe("AutoCodeRover results", () => {
  it("reads each run folder as one unit, one attempt per trial folder, without errors", () => {
    expect(all.errors).toEqual([]);
    expect(all.units.map((u) => [u.format, u.path.slice(RESULTS.length + 1)])).toEqual([
      ["autocoderover", "acr-run-1"],
      ["autocoderover", "acr-run-2"],
      ["autocoderover", "acr-run-3"],
    ]);
    expect(all.attempts).toHaveLength(3);
    for (const a of all.attempts) {
      expect(a.agent).toBe("autocoderover");
      expect(a.model).toBe("gpt-4-0125-preview");
    }
  });

  it("takes the task from problem_statement.txt and the instance from meta.json", async () => {
    const a = trial(PASSED);
    expect(a.taskId).toBe("django__django-12286");
    expect(a.taskText).toBe(await readFile(join(RESULTS, PASSED, "problem_statement.txt"), "utf8"));
    expect(a.events[1]).toMatchObject({ kind: "prompt", role: "user" });
    expect(a.events[1]?.input).toMatch(/^<issue>translation\.E004 shouldn't be raised/);
  });

  it("has the search calls in order, with their own names and arguments, and results", async () => {
    const a = trial(PASSED);
    const seq = (await json(join(RESULTS, PASSED, "tool_call_sequence.json"))) as {
      func_name: string;
      arguments: Record<string, unknown>;
      call_ok: boolean;
    }[];
    const search = calls(a).filter((c) => c.tool !== "write_patch");
    expect(search.map((c) => [c.tool, JSON.parse(c.input ?? "null")])).toEqual(
      seq.filter((c) => c.func_name !== "write_patch").map((c) => [c.func_name, c.arguments]),
    );
    expect(search[0]).toMatchObject({
      tool: "search_code",
      input: '{"code_str":"translation.E004"}',
    });
    expect(resultOf(a, search[0]?.callId)?.output).toMatch(/^Found 2 snippets containing/);
    // a search that found nothing is an error result, as ACR recorded it (call_ok false)
    expect(resultOf(a, search[1]?.callId)).toMatchObject({
      tool: "search_method",
      isError: true,
      output: "Could not find method check_language_code in the codebase.",
    });
    // the model's words are agent messages; the harness's step prompts user messages
    const said = a.events.filter((e) => e.kind === "message" && e.role === "agent");
    expect(said.length).toBeGreaterThan(2);
    expect(a.events.some((e) => e.input === "Let's analyze collected context first")).toBe(true);
  });

  it("reads each write_patch try as a call answered by the harness, an error when rejected", () => {
    const a = trial(PASSED);
    const tries = calls(a).filter((c) => c.tool === "write_patch");
    expect(tries).toHaveLength(2);
    expect(tries[0]?.input).toMatch(/^\{"patch":"# modification 1/);
    expect(tries[0]?.writes).toBeUndefined();
    expect(resultOf(a, tries[0]?.callId)).toMatchObject({
      isError: true,
      output:
        "Your edit could not be applied to the program. None of the edits can match the original program. Please try again.",
    });
    // the applied try writes the files of the diff extracted from it
    expect(tries[1]?.writes).toEqual(["django/core/checks/translation.py"]);
    expect(resultOf(a, tries[1]?.callId)?.isError).toBeUndefined();
    expect(resultOf(a, tries[1]?.callId)?.output).toMatch(/^Extracted a patch\./);
    expect(a.events.at(-1)?.kind).toBe("stop");
  });

  it("records the tools the agent was offered: the prompt's search APIs and write_patch", () => {
    for (const a of all.attempts)
      expect([...(a.offeredTools ?? [])].sort()).toEqual([
        "search_class",
        "search_code",
        "search_code_in_file",
        "search_method",
        "search_method_in_class",
        "search_method_in_file",
        "write_patch",
      ]);
    // none of them runs code: a stop without a check is no rule this agent could follow
    expect(all.attempts.every(offeredNoRunner)).toBe(true);
    const withShell = { ...trial(FAILED), offeredTools: ["search_code", "bash"] };
    expect(offeredNoRunner(withShell)).toBe(false);
    expect(offeredNoRunner({ ...trial(FAILED), offeredTools: undefined })).toBe(false);
  });

  it("names no stop without a check for it; the same run offered a shell does", () => {
    const a = trial(FAILED);
    const hits = runDetectors(a, { siblings: [] });
    expect(hits.some((h) => h.detectorId === "stop.no-check-after-write")).toBe(true);
    // (no sibling in the fixture: one kind of evidence, named at threshold 1)
    const one = { nameThreshold: 1 };
    expect(heuristicLabel(a, hits, [], one).mechanismId).not.toBe("stop-without-check");
    const shell: Attempt = { ...a, offeredTools: [...(a.offeredTools ?? []), "bash"] };
    const shellHits = runDetectors(shell, { siblings: [] });
    expect(heuristicLabel(shell, shellHits, [], one).mechanismId).toBe("stop-without-check");
  });

  it("takes tokens, cost, start and duration from cost.json", () => {
    const a = trial(PASSED);
    expect(a.tokens).toEqual({ input: 21363, output: 2529 });
    expect(a.costUsd).toBeCloseTo(0.2895, 6);
    expect(a.durationS).toBeCloseTo(194.874106, 5);
    expect(a.startedAt).toMatch(/^2024-04-04T/);
  });

  it("passes an instance the run's report lists as resolved, with the graded tests", () => {
    const a = trial(PASSED);
    expect(a.outcome).toBe("pass");
    expect(a.reward).toBe(1);
    const target = (a.verifierTests ?? []).filter((t) => t.role === "target");
    expect(target).toHaveLength(1);
    expect(target[0]).toMatchObject({ status: "passed" });
    expect((a.verifierTests ?? []).every((t) => t.status === "passed")).toBe(true);
    expect(a.verifierSource?.file).toMatch(
      /logs\/django__django-12286\.gpt-4-0125-preview\.eval\.log$/,
    );
  });

  it("fails a graded, unresolved instance, with the failing tests and what the output says", async () => {
    const a = trial(FAILED);
    expect(a.outcome).toBe("fail");
    expect(a.reward).toBe(0);
    const bad = (a.verifierTests ?? []).filter((t) => t.status !== "passed");
    expect(bad.map((t) => [t.name, t.role, t.status])).toEqual([
      ["test_json_display_for_field (admin_utils.tests.UtilsTests)", "target", "error"],
      // its row is cut by the other's subtest output: the log does not say how it ended
      ["test_label_for_field (admin_utils.tests.UtilsTests)", "target", "other"],
      ["test_values_from_lookup_field (admin_utils.tests.UtilsTests)", "regression", "error"],
    ]);
    expect(bad[0]?.message).toBe("NameError: name 'json' is not defined");
    expect(bad[2]?.message).toMatch(/^TypeError: Field 'id' expected a number/);
    // the verifier output is the log's test section, cited at the line it starts on
    const src = a.verifierSource;
    expect(src?.file).toMatch(/django__django-12308\.gpt-4-0125-preview\.eval\.log$/);
    const lines = (await readFile(src?.file ?? "", "utf8")).split("\n");
    const shown = (a.verifierOutput ?? "").split("\n");
    expect(lines.slice((src?.firstLine ?? 1) - 1, (src?.firstLine ?? 1) - 1 + 3)).toEqual(
      shown.slice(0, 3),
    );
    expect(a.verifierOutput).toMatch(/>>>>> Some Tests Failed/);
    expect(bad[0]?.line).toBeDefined();
    expect(lines[(bad[0]?.line ?? 1) - 1]).toMatch(/^ERROR: test_json_display_for_field/);
  });

  it("fails a trial whose every write_patch try was rejected: nothing was applied or graded", () => {
    const a = trial(UNMATCHED);
    expect(a.outcome).toBe("fail");
    expect(a.reward).toBe(0);
    expect(a.verifierOutput).toBe(
      "no patch was applied or graded: every write_patch try was rejected (RAW_PATCH_BUT_UNMATCHED, RAW_PATCH_BUT_UNMATCHED, RAW_PATCH_BUT_UNPARSED)",
    );
    expect(a.verifierSource?.file).toMatch(/extract_status\.json$/);
    expect(a.verifierTests).toBeUndefined();
    const tries = calls(a).filter((c) => c.tool === "write_patch");
    expect(tries).toHaveLength(3);
    expect(tries.map((c) => resultOf(a, c.callId)?.isError)).toEqual([true, true, true]);
    expect(resultOf(a, tries[2]?.callId)?.output).toMatch(/No edits can be parsed/);
    expect(a.events.some((e) => e.writes !== undefined)).toBe(false);
  });

  it("reads a bug location's fallback search as a call whose output the model never saw", () => {
    const a = trial(UNMATCHED);
    const search = calls(a).filter((c) => c.tool !== "write_patch");
    const [fallback, found] = search.slice(-2);
    expect(fallback).toMatchObject({ tool: "search_method_in_file" });
    expect(resultOf(a, fallback?.callId)).toBeUndefined();
    expect(found).toMatchObject({ tool: "search_method" });
    expect(resultOf(a, found?.callId)?.output).toMatch(
      /^Found 3 methods with name get_supported_language_variant/,
    );
  });

  it("never reads developer_patch.diff (the benchmark's gold patch) or meta.json's gold", async () => {
    for (const rel of [PASSED, FAILED, UNMATCHED]) {
      const a = trial(rel);
      const text = JSON.stringify(a);
      const gold = await readFile(join(RESULTS, rel, "developer_patch.diff"), "utf8");
      expect(text).not.toContain(JSON.stringify(gold).slice(1, -1));
      expect(text).not.toMatch(/developer_patch/);
      const meta = (await json(join(RESULTS, rel, "meta.json"))) as {
        task_info: { patch: string; test_patch: string };
      };
      expect(text).not.toContain(JSON.stringify(meta.task_info.test_patch).slice(1, -1));
    }
    // a gold patch naming another file changes nothing: it is never a write or an event
    const tmp = await mkdtemp(join(tmpdir(), "fire-acr-gold-"));
    try {
      const copy = join(tmp, "acr-run-1", UNMATCHED.split("/").slice(1).join("/"));
      await cp(join(RESULTS, UNMATCHED), copy, { recursive: true });
      await writeFile(
        join(copy, "developer_patch.diff"),
        "diff --git a/GOLD_ONLY.py b/GOLD_ONLY.py\n--- a/GOLD_ONLY.py\n+++ b/GOLD_ONLY.py\n@@ -1 +1 @@\n-a\n+b\n",
      );
      const again = await collect([copy]);
      expect(again.errors).toEqual([]);
      expect(again.attempts).toHaveLength(1);
      expect(JSON.stringify(again.attempts[0])).not.toMatch(/GOLD_ONLY/);
      expect(again.attempts[0]?.events.map((e) => [e.kind, e.tool, e.writes])).toEqual(
        trial(UNMATCHED).events.map((e) => [e.kind, e.tool, e.writes]),
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it("gives a trial the same id whether read alone or with its run", async () => {
    const alone = await collect([join(RESULTS, FAILED)]);
    expect(alone.units.map((u) => u.format)).toEqual(["autocoderover"]);
    expect(alone.units[0]?.outside).toBe(true);
    expect(alone.attempts[0]?.id).toBe(trial(FAILED).id);
    expect(alone.attempts[0]?.outcome).toBe("fail");
  });
});

describe("AutoCodeRover: the run's report read from outside a trial folder", () => {
  let ws: string;
  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), "fire-acr-outside-"));
  });
  afterAll(async () => {
    await rm(ws, { recursive: true, force: true });
  });

  it("a report and log that appear after the first load are read, not served stale", async () => {
    const run = join(ws, "traces", "acr-run-2");
    await cp(join(RESULTS, FAILED), join(run, "applicable_patch", FAILED.split("/")[2] ?? ""), {
      recursive: true,
    });
    // the trial folders are the sources: the run's grading lies outside them
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/acr-run-2/applicable_patch"] }),
    );
    const attempt = async () =>
      (await openCurrentWorkspace(ws)).attempts.find((a) => a.taskId === "django__django-12308");
    expect((await attempt())?.outcome).toBe("unknown");
    expect(await currentHead(ws)).toBeDefined();

    // the harness grades the run later
    await cp(join(RESULTS, "acr-run-2", "new_eval_results"), join(run, "new_eval_results"), {
      recursive: true,
    });
    expect(await currentHead(ws)).toBeUndefined();
    const graded = await attempt();
    expect(graded?.outcome).toBe("fail");
    expect(graded?.verifierTests?.some((t) => t.status === "error")).toBe(true);
    expect(await currentHead(ws)).toBeDefined();
  });
});
