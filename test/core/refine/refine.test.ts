import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  acceptRefinement,
  candidateNamed,
  openSession,
  refine,
  reloadCandidates,
  replayScreen,
} from "../../../src/core/app/index.js";
import { serializeAttempt } from "../../../src/core/ingest/fire-jsonl.js";
import { candidateText } from "../../../src/core/lifecycle/store.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { Candidate, type CandidateInput } from "../../../src/core/policy/schema.js";
import { type RefineInput, refineCandidate } from "../../../src/core/refine/refine.js";
import { runReplayScreen } from "../../../src/core/screening/replay/measure.js";
import { DEFAULT_SIZES } from "../../../src/core/screening/replay/sets.js";
import { DEFAULT_THRESHOLDS } from "../../../src/core/verdict/thresholds.js";
import { fireIn } from "../../helpers/cli.js";

/**
 * `fire candidate refine`: each refinement kind found on a small corpus built to need it,
 * the generality constraint, no separation, the time budget and cancel. Every proposal is
 * judged by the one evaluator (measureScreen), so the tests assert on replayed figures.
 */

type Step = string | { write: string };

function attempt(id: string, taskId: string, text: string, steps: Step[], pass = false): Attempt {
  const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: text }];
  for (const s of steps) {
    const i = events.length;
    if (typeof s === "string")
      events.push(
        {
          index: i,
          kind: "tool_call",
          tool: "Bash",
          command: s,
          input: JSON.stringify({ command: s }),
        },
        { index: i + 1, kind: "tool_result", tool: "Bash", output: "ok", exitCode: 0 },
      );
    else
      events.push(
        {
          index: i,
          kind: "tool_call",
          tool: "Write",
          input: JSON.stringify({ path: s.write }),
          writes: [s.write],
        },
        { index: i + 1, kind: "tool_result", tool: "Write", output: "written" },
      );
  }
  events.push({ index: events.length, kind: "message", role: "agent", input: "Done." });
  return Attempt.parse({
    id,
    source: { format: "fire-jsonl", path: "test.jsonl" },
    taskId,
    taskText: text,
    arm: "baseline",
    outcome: pass ? "pass" : "fail",
    events,
  });
}

/** Unrelated passing tasks: the silent cohort. */
const silent = (n: number): Attempt[] =>
  [
    "Sort the numbers",
    "Translate the poem",
    "Count the vowels",
    "Draw a triangle",
    "Parse the date",
    "Rename the photos",
  ]
    .slice(0, n)
    .map((t, i) => attempt(`s${i}`, `other-${i}`, `${t} in the given input.`, ["ls"], true));

function candidate(over: Partial<CandidateInput>, lineage: string[]): Candidate {
  return Candidate.parse({
    id: "probe-service",
    version: 1,
    family: "service-persistence",
    title: "Keep the server running",
    chain: {
      state: "a server was launched",
      intervention: "instruct",
      behavior: "detached",
      verifier: "reachable",
    },
    lineage: { clusters: [], attempts: lineage },
    eligibility: { anyOf: [{ pattern: "\\bserver\\b", flags: "i" }] },
    rules: [
      {
        id: "warn",
        at: "tool",
        when: { command: "http\\.server" },
        action: "instruct",
        message: "Detach the server.",
      },
    ],
    behavior: { flag: "never" },
    ...over,
  });
}

function input(c: Candidate, attempts: Attempt[], over: Partial<RefineInput> = {}): RefineInput {
  const policy = compilePolicy(c, "c.yaml");
  const screen = runReplayScreen({
    policy,
    others: [],
    attempts,
    preFailure: new Map(),
    sizes: DEFAULT_SIZES,
    seed: 1,
    thresholds: DEFAULT_THRESHOLDS,
    now: new Date(0),
  });
  return {
    target: { candidate: c, policy, file: "c.yaml" },
    screen,
    others: [],
    attempts,
    preFailure: new Map(),
    thresholds: DEFAULT_THRESHOLDS,
    ...over,
  };
}

const P1 = "Start the web server on port 8080 and keep it running after you finish.";
const P2 = "Launch the API server on port 9000 and keep it running after you finish.";
const positives = (steps: Step[]) => [
  attempt("p1", "alpha-one", P1, steps),
  attempt("p2", "bravo-two", P2, steps),
];

describe("refine: each refinement kind", () => {
  it("eligibility: a phrase of both positive tasks leaves the negatives it fired on out", async () => {
    const negs = [
      "Summarise the server logs",
      "Audit the server config",
      "List the server users",
    ].map((t, i) =>
      attempt(`n${i}`, `neg-${i}`, `${t} and report the totals.`, ["python3 -m http.server"], true),
    );
    const all = [...positives(["python3 -m http.server 8080", "ls"]), ...negs, ...silent(4)];
    const inp = input(candidate({}, ["p1", "p2"]), all);
    expect(inp.screen.verdict.verdict).toBe("over-broad");
    const r = await refineCandidate(inp);
    expect(r.separation).toBe("found");
    const best = r.proposals[0]!;
    expect(best.kinds).toEqual(["eligibility"]);
    expect(best.after.verdict).toBe("promising");
    expect(best.after.positivesTimely.k).toBe(2);
    expect(best.phrases[0]!.list).toBe("allOf");
    expect(best.phrases[0]!.positives.sort()).toEqual(["alpha-one", "bravo-two"]);
    expect(best.dropped.length).toBeGreaterThan(0);
    expect(best.diff.some((l) => l.startsWith("+ "))).toBe(true);
  });

  it("trigger (widen): drops a requirement the missed positives lacked", async () => {
    const c = candidate(
      {
        track: [{ id: "probe", at: "tool", when: { command: "\\bcurl\\b" }, record: "probe" }],
        rules: [
          {
            id: "warn",
            at: "tool",
            when: { command: "http\\.server", recorded: "probe" },
            action: "instruct",
            message: "Detach the server.",
          },
        ],
      },
      ["p1", "p2"],
    );
    const all = [...positives(["python3 -m http.server 8080", "ls"]), ...silent(5)];
    const inp = input(c, all);
    expect(inp.screen.verdict.verdict).toBe("inert");
    const r = await refineCandidate(inp);
    const best = r.proposals[0]!;
    expect(best.kinds).toEqual(["trigger"]);
    expect(best.directions).toEqual(["widen"]);
    expect(best.summary[0]).toMatch(/no longer requires recorded/);
    expect(best.gained).toEqual(["p1", "p2"]);
    expect(best.after.verdict).toBe("promising");
    expect(r.caution).toBeUndefined();
  });

  it("trigger (narrow): requires a prior state that held on the positives", async () => {
    // each negative adds a word of its own: no phrase found in two of them excludes them
    const negs = ["Zulu", "Yankee", "Whiskey"].map((w, i) =>
      attempt(`n${i}`, `neg-${i}`, `${P1} ${w}.`, ["python3 -m http.server", "ls"], true),
    );
    const all = [
      ...positives([{ write: "/app/site/index.html" }, "python3 -m http.server 8080", "ls"]),
      ...negs,
      ...silent(3),
    ];
    const inp = input(candidate({}, ["p1", "p2"]), all);
    expect(inp.screen.verdict.verdict).toBe("over-broad");
    const r = await refineCandidate(inp);
    const best = r.proposals[0]!;
    expect(best.kinds).toEqual(["trigger"]);
    expect(best.summary[0]).toBe("rule warn fires only when a file was written");
    expect(best.after.verdict).toBe("promising");
    expect(best.after.negativesFired.k).toBe(0);
    expect(best.candidate.track.map((t) => t.id)).toContain("prior-wrote");
  });

  it("trigger (threshold): a counter threshold the missed positives never reached, lowered", async () => {
    const c = candidate(
      {
        track: [{ id: "calls", at: "tool", increment: "calls" }],
        rules: [
          {
            id: "warn",
            at: "tool",
            when: { count: "calls >= 4" },
            action: "instruct",
            message: "Detach the server.",
          },
        ],
      },
      ["p1", "p2"],
    );
    const all = [...positives(["python3 -m http.server 8080", "ls"]), ...silent(5)];
    const inp = input(c, all);
    expect(inp.screen.verdict.verdict).toBe("inert");
    const r = await refineCandidate(inp);
    const best = r.proposals[0]!;
    expect(best.summary).toEqual(["rule warn fires at calls >= 2 (was calls >= 4)"]);
    expect(best.after.verdict).toBe("promising");
  });

  it("release: drops a release that held before the positives' trigger", async () => {
    const c = candidate(
      {
        track: [{ id: "looked", at: "tool", when: { command: "^ls\\b" }, set: "looked" }],
        rules: [
          {
            id: "warn",
            at: "tool",
            when: { command: "http\\.server" },
            release: { flag: "looked" },
            action: "instruct",
            message: "Detach the server.",
          },
        ],
      },
      ["p1", "p2"],
    );
    const all = [...positives(["ls", "python3 -m http.server 8080", "ls"]), ...silent(5)];
    const inp = input(c, all);
    expect(inp.screen.verdict.verdict).toBe("inert");
    const r = await refineCandidate(inp);
    const rel = r.proposals.find((p) => p.kinds.includes("release"));
    expect(rel?.summary[0]).toMatch(/no longer released/);
    expect(rel?.after.verdict).toBe("promising");
  });

  it("pattern (looser): a case-sensitive command pattern made case-insensitive", async () => {
    const c = candidate(
      {
        rules: [
          {
            id: "warn",
            at: "tool",
            when: { command: "HTTP\\.SERVER" },
            action: "instruct",
            message: "Detach the server.",
          },
        ],
      },
      ["p1", "p2"],
    );
    const negs = [
      "Summarise the server logs",
      "Audit the server config",
      "List the server users",
    ].map((t, i) => attempt(`n${i}`, `neg-${i}`, `${t} and report the totals.`, ["ls"], true));
    const all = [...positives(["python3 -m http.server 8080", "ls"]), ...negs, ...silent(3)];
    const inp = input(c, all);
    expect(inp.screen.verdict.verdict).toBe("inert");
    const r = await refineCandidate(inp);
    const best = r.proposals[0]!;
    expect(best.kinds).toEqual(["pattern"]);
    expect(best.summary[0]).toBe("rule warn's patterns ignore case");
    expect(best.after.verdict).toBe("promising");
    // dropping the command instead fires on every negative: measured, and ranked below
    const dropped = r.proposals.find(
      (p) => p.summary.length === 1 && p.summary[0]!.includes("no longer requires command"),
    );
    if (dropped) expect(dropped.after.verdict).not.toBe("promising");
  });
});

describe("refine: generality and no separation", () => {
  it("refuses a phrase found in one counterexample task only", async () => {
    const same = "Keep the web server running on port 8080 after you finish.";
    const all = [
      attempt("p1", "alpha-one", same, ["python3 -m http.server 8080", "ls"]),
      attempt("p2", "bravo-two", same, ["python3 -m http.server 8080", "ls"]),
      attempt(
        "n0",
        "neg-0",
        `${same} Paint zebra stripes.`,
        ["python3 -m http.server", "ls"],
        true,
      ),
      ...silent(2),
    ];
    const r = await refineCandidate(input(candidate({}, ["p1", "p2"]), all));
    expect(r.refused.map((x) => x.label)).toEqual(
      expect.arrayContaining(['word "zebra"', 'word "stripes"']),
    );
    expect(r.refused.find((x) => x.label === 'word "zebra"')?.reason).toMatch(
      /one counterexample task/,
    );
    for (const p of r.proposals) expect(JSON.stringify(p.candidate)).not.toMatch(/zebra|stripes/);
  });

  it("says so when nothing separates, and offers retire or the data that would decide", async () => {
    const same = "Keep the web server running on port 8080 after you finish.";
    const cmds = ["python3 -m http.server 8080", "ls"];
    const all = [
      attempt("p1", "alpha-one", same, cmds),
      ...["n0", "n1", "n2"].map((id, i) => attempt(id, `neg-${i}`, same, cmds, true)),
      ...silent(2),
    ];
    const inp = input(candidate({}, ["p1"]), all);
    expect(inp.screen.verdict.verdict).toBe("over-broad");
    const r = await refineCandidate(inp);
    expect(r.separation).toBe("none");
    expect(r.proposals).toEqual([]);
    expect(r.noSeparation?.reasons.join(" ")).toMatch(/negative task/);
    expect(r.noSeparation?.retire).toMatch(/^fire candidate retire probe-service@1/);
    expect(r.noSeparation?.needsMoreData.join(" ")).toMatch(/more task/);
    expect(r.caution).toBeUndefined();
  });
});

describe("refine: bounded", () => {
  const negs = [
    "Summarise the server logs",
    "Audit the server config",
    "List the server users",
  ].map((t, i) =>
    attempt(`n${i}`, `neg-${i}`, `${t} and report the totals.`, ["python3 -m http.server"], true),
  );
  const all = [...positives(["python3 -m http.server 8080", "ls"]), ...negs, ...silent(4)];

  it("cancels on the signal", async () => {
    const ac = new AbortController();
    const r = refineCandidate(
      input(candidate({}, ["p1", "p2"]), all, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.tried === 1) ac.abort();
        },
      }),
    );
    await expect(r).rejects.toThrow(/abort/i);
  });

  it("stops at the time budget and says so", async () => {
    const r = await refineCandidate(input(candidate({}, ["p1", "p2"]), all, { budgetMs: 0 }));
    expect(r.timedOut).toBe(true);
    expect(r.tried).toBe(0);
  });
});

describe("refine in a workspace", () => {
  const dir = mkdtempSync(join(tmpdir(), "fire-refine-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("needs a replay screen, proposes, and accepting writes a revision refined from the old", {
    timeout: 60_000,
  }, async () => {
    const negs = [
      "Summarise the server logs",
      "Audit the server config",
      "List the server users",
    ].map((t, i) =>
      attempt(`n${i}`, `neg-${i}`, `${t} and report the totals.`, ["python3 -m http.server"], true),
    );
    const all = [...positives(["python3 -m http.server 8080", "ls"]), ...negs, ...silent(4)];
    mkdirSync(join(dir, "traces"));
    mkdirSync(join(dir, "candidates", "drafts"), { recursive: true });
    writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"] }));
    writeFileSync(join(dir, "traces", "a.jsonl"), `${all.map(serializeAttempt).join("\n")}\n`);
    const file = join(dir, "candidates", "drafts", "probe-service.yaml");
    writeFileSync(file, candidateText(candidate({}, ["p1", "p2"]), file));
    let s = await openSession(dir);
    const target = candidateNamed(s, "probe-service");
    await expect(refine(s, target)).rejects.toThrow(/fire screen replay probe-service@1/);
    const cli = await fireIn(["candidate", "refine", "probe-service", "-w", dir]);
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain("run `fire screen replay probe-service@1` first");

    await replayScreen(s, target);
    const r = await refine(s, target);
    const best = r.proposals[0]!;
    expect(best.after.verdict).toBe("promising");
    // the CLI lists the same proposals (and writes nothing without --accept)
    const listed = await fireIn(["candidate", "refine", "probe-service", "--json", "-w", dir]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).proposals[0].id).toBe(best.id);
    expect(() => candidateNamed(reloadCandidates(s), "probe-service@2")).toThrow();
    const rev = await acceptRefinement(s, target, best);
    expect(rev.candidate.version).toBe(2);
    expect(rev.candidate.lineage.supersedes).toBe("probe-service@1");
    expect(rev.candidate.history.at(-1)?.note).toMatch(/^refined from probe-service@1: /);
    expect(readFileSync(rev.file, "utf8")).toContain("allOf");
    s = reloadCandidates(s);
    const { screen } = await replayScreen(s, candidateNamed(s, "probe-service@2"));
    expect(screen.verdict.verdict).toBe("promising");
  });
});
