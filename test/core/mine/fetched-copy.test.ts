import { beforeAll, describe, expect, it } from "vitest";
import { launchesServer } from "../../../src/core/mine/detectors/attached-server.js";
import { fetchedOwnCopy } from "../../../src/core/mine/detectors/fetched-copy.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { inputMissed } from "../../../src/core/mine/detectors/input-missed.js";
import { installedPackageEdited } from "../../../src/core/mine/detectors/installed-package.js";
import { ownProjectBuilt } from "../../../src/core/mine/detectors/own-project.js";
import { faultOf, truncatedFinalResponse } from "../../../src/core/mine/faults/index.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { fixture } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";
import { elsewhereTrials } from "./elsewhere-trials.js";

/** Real OpenClaw trials that never found the task's repository (fixture README). */
let byTrial: Map<string, Attempt>;
beforeAll(async () => {
  byTrial = await elsewhereTrials();
});
const trial = (name: string) => byTrial.get(name) as Attempt;
const RANCHER = "rancher__fleet_1696ab59_955bbd7f__Gf2sgLf";
const TOOLHIVE = "stacklok__toolhive_398eeec9_5e24__EgQqXTm";
const MEASURE = "measure-sh__measure_2d069404_bc4__ojXT8yd";
const GOCLAW = "nextlevelbuilder__goclaw_0881d7f__VwB3rNo";
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

  it("after a cut-off last reply: the provider's fault, the fetched copy its second reading", () => {
    const a = trial(RANCHER);
    // the final reply announces a write and ends with no tool call and no prompt tokens
    expect(truncatedFinalResponse(a)).toBeDefined();
    const l = label(a);
    expect(l.exclusion).toBe("provider_fault");
    expect(l.secondReading).toMatchObject({
      kind: "policy_addressable",
      mechanismId: "task-input-missed",
    });
    expect(l.secondReading?.why).toMatch(/cloned https:\/\/github\.com\/rancher\/fleet\.git/);
  });

  it("without the cut-off: named, with the task's role as its second fact", () => {
    const a = trial(RANCHER);
    // the same run, had its last turn been metered: no provider fault to read
    const end = { ...a.agentEnd, promptTokens: 1200 };
    const metered = Attempt.parse({ ...a, agentEnd: end });
    expect(faultOf(metered)).toBeUndefined();
    const l = label(metered);
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

  it("is silent when the agent also changed files outside the copy (its own tree)", () => {
    const a = trial(RANCHER);
    expect(hitOf(a)).toBeDefined();
    const n = a.events.length - 1;
    const withWrite = (path: string) =>
      Attempt.parse({
        ...a,
        events: [
          ...a.events.slice(0, n),
          {
            index: 0,
            kind: "tool_call" as const,
            tool: "write",
            callId: "w",
            input: "{}",
            writes: [path],
          },
          ...a.events.slice(n),
        ].map((e, index) => ({ ...e, index })),
      });
    expect(hitOf(withWrite("/app/internal/bundlereader/source.go"))).toBeUndefined();
    // a scratch file is no other tree
    expect(hitOf(withWrite("/tmp/notes.txt"))).toBeDefined();
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

  it("a tool missing from the host did not decide work done in a fetched copy", () => {
    const a = trial(RANCHER);
    const metered = { ...a.agentEnd, promptTokens: 1200 };
    const n = a.events.length - 1;
    const call = (events: Attempt["events"]) => [
      ...events.slice(0, n),
      {
        index: 0,
        kind: "tool_call" as const,
        tool: "exec",
        callId: "py",
        command: "python3 gen.py",
      },
      {
        index: 0,
        kind: "tool_result" as const,
        tool: "exec",
        callId: "py",
        output: "bash: python3: command not found",
        exitCode: 127,
      },
      ...events.slice(n),
    ];
    const withTool = (events: Attempt["events"]) =>
      Attempt.parse({
        ...a,
        agentEnd: metered,
        taskText: `${a.taskText}\nRegenerate the fixtures with python3.`,
        events: call(events).map((e, index) => ({ ...e, index })),
      });
    expect(faultOf(withTool(a.events))).toBeUndefined();
    expect(label(withTool(a.events)).mechanismId).toBe("task-input-missed");
    // without the clone (the copy's calls kept), the missing tool is the environment's again
    const i = cloneIndex(a);
    const noClone = a.events.map((e, j) =>
      j === i ? { ...e, command: "cd /workspace && ls" } : e,
    );
    expect(faultOf(withTool(noClone))?.code).toBe("tool-unavailable");
  });

  it("an agent that stopped with nothing written after missing the code, on such a task", () => {
    const a = trial(TOOLHIVE);
    const last = [...a.events].reverse().find((e) => e.kind === "message" && e.role !== "user");
    const said = (text: string, extra: Attempt["events"] = []) => {
      const events = a.events.map((e) => (e === last ? { ...e, input: text } : e));
      const at = events.indexOf(events.find((e) => e.index === last?.index) as (typeof events)[0]);
      const all = [...events.slice(0, at), ...extra, ...events.slice(at)];
      return Attempt.parse({ ...a, events: all.map((e, index) => ({ ...e, index })) });
    };
    const stated = said("The workspace is empty, so there is no operator code to change.");
    expect(inputMissed.detect(stated, { siblings: [] })[0]?.reason).toMatch(
      /found nothing, then stopped with nothing written$/,
    );
    const wrote = said("The workspace is empty, so I wrote the controller myself.", [
      {
        index: 0,
        kind: "tool_call",
        tool: "write",
        callId: "w",
        input: '{"path":"/workspace/c.go"}',
        writes: ["/workspace/c.go"],
      },
    ]);
    expect(inputMissed.detect(wrote, { siblings: [] })).toEqual([]);
    // on a task that presupposes no code, a stop with nothing written is no such reading
    const bare = Attempt.parse({
      ...stated,
      taskText: "Add a command-line flag for the log level.",
    });
    expect(inputMissed.detect(bare, { siblings: [] })).toEqual([]);
  });

  it("a listing that found no source files, then a project of the agent's own", () => {
    const a = trial(MEASURE);
    const h = ownProjectBuilt.detect(a, { siblings: [] })[0];
    expect(h?.reason).toMatch(
      /a listing for the task's source files found none \(find \/workspace .*\); the agent then started its own project \(\/workspace\/android\/.*build\.gradle\.kts\)/,
    );
    const l = label(a);
    expect(l.mechanismId).toBe("task-input-missed");
    expect(l.evidence?.find((e) => e.from === "task")?.excerpt).toBe(
      "the task is about code already present",
    );
    // a task that asks for a new project, or presupposes no code, is not read so
    const withTask = (taskText: string) => Attempt.parse({ ...a, taskText });
    expect(
      ownProjectBuilt.detect(withTask(`${a.taskText}\nCreate a new Gradle project for it.`), {
        siblings: [],
      }),
    ).toEqual([]);
    expect(
      ownProjectBuilt.detect(withTask("Write an Android session recorder in Kotlin."), {
        siblings: [],
      }),
    ).toEqual([]);
  });

  it("a listing piped into a text search is no finding that the code is absent", () => {
    const a = trial(MEASURE);
    const events = a.events.map((e) =>
      e.kind === "tool_call" && /^find \/workspace/.test(e.command ?? "")
        ? { ...e, command: `${e.command} | xargs grep -l SessionRecorder` }
        : e,
    );
    expect(ownProjectBuilt.detect(Attempt.parse({ ...a, events }), { siblings: [] })).toEqual([]);
  });

  it("every change inside installed packages (the agent's own harness), none in the task's code", () => {
    const a = trial(GOCLAW);
    const h = installedPackageEdited.detect(a, { siblings: [] })[0];
    expect(h?.reason).toMatch(
      /search\(es\) for the task's code missed; all \d+ file\(s\) the agent changed lie inside installed packages \(\/root\/\.nvm\/.*node_modules\/openclaw\/dist\//,
    );
    expect(label(a).mechanismId).toBe("task-input-missed");
    // one change outside installed packages, or a task about an installed package: not read so
    const n = a.events.length - 1;
    const withWrite = Attempt.parse({
      ...a,
      events: [
        ...a.events.slice(0, n),
        {
          index: 0,
          kind: "tool_call" as const,
          tool: "write",
          callId: "w",
          input: "{}",
          writes: ["/app/goclaw/internal/agent.go"],
        },
        ...a.events.slice(n),
      ].map((e, index) => ({ ...e, index })),
    });
    expect(installedPackageEdited.detect(withWrite, { siblings: [] })).toEqual([]);
    const aboutInstalled = Attempt.parse({
      ...a,
      taskText: `${a.taskText}\nThe fix belongs in the installed package under node_modules.`,
    });
    expect(installedPackageEdited.detect(aboutInstalled, { siblings: [] })).toEqual([]);
  });

  it("fires on none of the shared OpenClaw failures", async () => {
    const got = await collect([fixture("harbor-openclaw")]);
    expect(got.attempts.length).toBeGreaterThan(10);
    expect(got.attempts.filter((a) => hitOf(a))).toEqual([]);
    for (const d of [ownProjectBuilt, installedPackageEdited])
      expect(got.attempts.filter((a) => d.detect(a, { siblings: [] }).length)).toEqual([]);
  });
});

describe("code given to an interpreter is not a server launch", () => {
  it("reads `node -e` / `python -c` code as code, unless it listens", () => {
    expect(
      launchesServer(
        `node -e "require('/root/.nvm/versions/node/v22/lib/node_modules/x/dist/server.impl-B.js')" 2>&1 | head -20`,
      ),
    ).toBe(false);
    expect(launchesServer(`python3 -c 'import app.server as s; print(s.__file__)'`)).toBe(false);
    expect(launchesServer(`node -e "require('./server.js').app.listen(8080)" & sleep 1`)).toBe(
      true,
    );
    expect(launchesServer("cd /app && node server.js &")).toBe(true);
    expect(launchesServer("nohup ./bin/api-server --port 80 > log 2>&1 &")).toBe(true);
  });
});
