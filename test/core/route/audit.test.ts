import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { routeAudit, routingProblems, taskTexts } from "../../../src/core/route/audit.js";
import { renderRouteAudit } from "../../../src/core/route/render.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { type Demo, minedDemo } from "../draft/demo.js";

describe("routing audit on the demo workspace with the reference portfolio", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await minedDemo();
  }, 60_000);
  afterAll(() => demo.cleanup());

  it("routes each paper family's tasks to it with the phrase that matched, no cross-routing", () => {
    const ref = loadPolicies([`${REPO_ROOT}/candidates/reference`]);
    expect(ref.errors).toEqual([]);
    const tasks = taskTexts(demo.ws.attempts);
    expect(tasks.length).toBe(new Set(demo.ws.attempts.map((a) => a.taskId)).size);
    const a = routeAudit(ref.policies, tasks);
    expect(a.tasks).toBe(tasks.length);
    expect(a.multiFamily).toEqual([]);
    expect(a.idle).toEqual([]);
    const svc = a.matrix.find((r) => r.taskId === "serve-static-docs")!;
    expect(svc.routes.map((r) => r.family)).toEqual(["service-persistence"]);
    expect(svc.routes[0]!.matched).toBeTruthy();
    expect(tasks.find((t) => t.taskId === "serve-static-docs")!.text).toContain(
      svc.routes[0]!.matched!,
    );
    // every routed task is named exactly once per candidate; silent = routed by none
    const routed = new Set(a.candidates.flatMap((c) => c.routed));
    expect(a.silent.every((t) => !routed.has(t))).toBe(true);
    expect(a.silent.length + routed.size).toBe(tasks.length);
    for (const c of a.candidates) expect(routingProblems(a, c.policy)).toEqual([]);
    expect(renderRouteAudit(a)).toContain("tasks routed to more than one family: none");
  });

  it("flags an over-broad candidate: multi-family tasks and routing problems", () => {
    const ref = loadPolicies([`${REPO_ROOT}/candidates/reference/latex-final-log.yaml`]).policies;
    const broad = compilePolicy(
      Candidate.parse({
        ...ref[0]!.candidate,
        id: "broad",
        family: "anything",
        eligibility: { anyOf: ["\\b(the|a)\\b"] },
      }),
    );
    const tasks = taskTexts(demo.ws.attempts);
    const a = routeAudit([...ref, broad], tasks);
    const latexTasks = a.candidates[0]!.routed;
    expect(latexTasks.length).toBeGreaterThan(0);
    expect(a.multiFamily.map((m) => m.taskId)).toEqual(latexTasks);
    expect(a.multiFamily[0]!.families).toEqual(["anything", "latex-final-log"]);
    expect(routingProblems(a, "broad@1")[0]).toMatch(/routed to anything and latex-final-log/);
    expect(routingProblems(a, "missing@1")).toEqual(["missing@1 is not in the routing audit"]);
  });

  it("a candidate that routes nothing is idle and not acceptable", () => {
    const ref = loadPolicies([`${REPO_ROOT}/candidates/reference/latex-final-log.yaml`]).policies;
    const none = compilePolicy(
      Candidate.parse({
        ...ref[0]!.candidate,
        id: "none",
        eligibility: { anyOf: ["zzz-never-zzz"] },
      }),
    );
    const a = routeAudit([none], taskTexts(demo.ws.attempts));
    expect(a.idle).toEqual(["none@1"]);
    expect(a.silent.length).toBe(a.tasks);
    expect(routingProblems(a, "none@1")).toEqual(["none@1 routes no task"]);
  });
});
