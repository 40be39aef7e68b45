import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fetchedOwnCopy } from "../../../src/core/mine/detectors/fetched-copy.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { inputMissed } from "../../../src/core/mine/detectors/input-missed.js";
import { faultOf, truncatedFinalResponse } from "../../../src/core/mine/faults/index.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/** Real OpenClaw trials that never found the task's repository (fixture README). */
let byTrial: Map<string, Attempt>;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-openclaw-elsewhere")]);
  expect(got.errors).toEqual([]);
  byTrial = new Map(got.attempts.map((a) => [a.source.path.split("/").at(-1) ?? "", a]));
});
const trial = (name: string) => byTrial.get(name) as Attempt;
const RANCHER = "rancher__fleet_1696ab59_955bbd7f__Gf2sgLf";
const TOOLHIVE = "stacklok__toolhive_398eeec9_5e24__EgQqXTm";
const hitOf = (a: Attempt) => fetchedOwnCopy.detect(a, { siblings: [] })[0];
const label = (a: Attempt) => heuristicLabel(a, runDetectors(a, { siblings: [] }));
/** The clone call of the rancher trial, and a copy of the attempt with its result replaced. */
const cloneIndex = (a: Attempt) =>
  a.events.findIndex((e) => e.kind === "tool_call" && /git clone/.test(e.command ?? ""));

describe("a copy of the project fetched instead of the task's own (real OpenClaw trials)", () => {
  it("names the empty searches, the clone and the work in the copy", () => {
    const a = trial(RANCHER);
    const h = hitOf(a);
    expect(h?.reason).toMatch(
      /3 search\(es\) for the task's code found nothing; the agent cloned https:\/\/github\.com\/rancher\/fleet\.git into \/workspace\/fleet-repo and worked there/,
    );
    expect(h?.eventIndices).toContain(a.events[cloneIndex(a)]?.index);
  });

  it("decides the outcome before a cut-off last reply, with the task's role as second fact", () => {
    const a = trial(RANCHER);
    // the final reply announces a write and ends with no tool call and no prompt tokens
    expect(truncatedFinalResponse(a)).toBeDefined();
    expect(faultOf(a)).toBeUndefined();
    const l = label(a);
    expect(l.status).toBe("named");
    expect(l.mechanismId).toBe("task-input-missed");
    expect(l.kind).toBe("policy_addressable");
    expect(l.evidence?.find((e) => e.from === "task")?.excerpt).toBe(
      "the task is about code already present",
    );
  });

  it("is silent where the task asks for the clone, or speaks of no existing code", () => {
    const a = trial(RANCHER);
    const withTask = (taskText: string) => Attempt.parse({ ...a, taskText });
    expect(hitOf(withTask(`${a.taskText}\nClone the upstream repository first.`))).toBeUndefined();
    expect(
      hitOf(withTask(`${a.taskText}\nSee https://github.com/rancher/fleet for the code.`)),
    ).toBeUndefined();
    expect(hitOf(withTask("Write a Go function that redacts passwords in URLs."))).toBeUndefined();
    // a task about a downloader is not a request to download the code
    expect(
      hitOf(withTask(`${a.taskText}\nErrors of the HTTP download must stay wrapped.`)),
    ).toBeDefined();
  });

  it("is silent when the clone failed, or came from this machine's own server", () => {
    const a = trial(RANCHER);
    const i = cloneIndex(a);
    const call = a.events[i];
    const events = a.events.map((e) =>
      e.kind === "tool_result" && e.callId === call?.callId
        ? {
            ...e,
            output: "fatal: unable to access 'https://github.com/rancher/fleet.git/'",
            exitCode: 128,
          }
        : e,
    );
    expect(hitOf(Attempt.parse({ ...a, events }))).toBeUndefined();
    const local = a.events.map((e, j) =>
      j === i
        ? {
            ...e,
            command: "cd /workspace && git clone ssh://git@localhost/srv/fleet.git fleet-repo 2>&1",
          }
        : e,
    );
    expect(hitOf(Attempt.parse({ ...a, events: local }))).toBeUndefined();
  });

  it("an agent that asked for code the task says is present: two facts, named", () => {
    const a = trial(TOOLHIVE);
    const h = inputMissed.detect(a, { siblings: [] })[0];
    expect(h?.taskRole).toBe("the task is about code already present");
    expect(label(a).mechanismId).toBe("task-input-missed");
    // the same question on a task that presupposes no code is one fact: kept for review
    const bare = Attempt.parse({ ...a, taskText: "Add a command-line flag for the log level." });
    expect(inputMissed.detect(bare, { siblings: [] })[0]?.taskRole).toBeUndefined();
    expect(label(bare).status).toBe("needs_review");
  });

  it("fires on none of the shared OpenClaw failures", async () => {
    const got = await collect([fixture("harbor-openclaw")]);
    expect(got.attempts.length).toBeGreaterThan(10);
    expect(got.attempts.filter((a) => hitOf(a))).toEqual([]);
  });
});
