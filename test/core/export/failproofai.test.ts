import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportFailproofai } from "../../../src/core/export/failproofai.js";
import { freezePortfolio } from "../../../src/core/freeze/freeze.js";
import { listCandidates } from "../../../src/core/lifecycle/store.js";
import { defaultConfig } from "../../../src/core/workspace/config.js";
import { sessionFile } from "../../../src/runtime/state-store.js";
import { runFire, spawnAsync } from "../../helpers/cli.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** The hook's state file of a session id in a state folder (the hook's own naming). */
const stateFileOf = (dir: string, id: string) => sessionFile(dir, id);

/**
 * A stand-in for the third-party failproofai package (its documented custom-policy API:
 * customPolicies.add({name, match: {events}, fn}), allow / deny / instruct) so the exported
 * module can be imported and run by a real Node process.
 */
const STUB = `export const registered = [];
export const customPolicies = { add(p) { registered.push(p); } };
export const allow = (message) => (message ? { decision: "allow", message } : { decision: "allow" });
export const deny = (message) => ({ decision: "deny", message });
export const instruct = (message) => ({ decision: "instruct", message });
`;

const RUN = `import { registered } from "failproofai";
await import(process.argv[2]);
const session = { session_id: process.env.RUN_SESSION || "s1" };
const events = [
  { eventType: "UserPromptSubmit", payload: { ...session, prompt: "Fix main.tex so pdflatex builds with no Overfull hbox warnings." } },
  { eventType: "PreToolUse", toolName: "Bash", toolInput: { command: "pdflatex -interaction=nonstopmode main.tex" }, payload: session },
  { eventType: "PostToolUse", toolName: "Bash", toolInput: { command: "pdflatex main.tex" }, payload: { ...session, tool_response: { stdout: "Output written", exit_code: 0 } } },
  { eventType: "Stop", payload: session },
  { eventType: "Stop", payload: session },
];
const out = [];
for (const ctx of events)
  for (const p of registered)
    if (p.match.events.includes(ctx.eventType)) out.push({ policy: p.name, event: ctx.eventType, ...(await p.fn(ctx)) });
console.log(JSON.stringify({ names: registered.map((p) => p.name), out }));
`;

describe("fire export --format failproofai", () => {
  let dir: string;
  let exp: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-fp-"));
    await mkdir(join(dir, "candidates"), { recursive: true });
    await cp(
      join(REPO_ROOT, "candidates/reference/latex-final-log.yaml"),
      join(dir, "candidates/latex.yaml"),
    );
    const r = await freezePortfolio({
      workspace: dir,
      name: "tex",
      candidates: listCandidates(dir).candidates,
      attempts: [],
      config: defaultConfig(),
      force: { reason: "export test" },
      now: new Date("2026-11-30T00:00:00Z"),
    });
    if (!r.ok) throw new Error("freeze failed");
    exp = join(dir, "export");
    await exportFailproofai(r.dir, exp);
    await mkdir(join(exp, "node_modules", "failproofai"), { recursive: true });
    await writeFile(
      join(exp, "node_modules", "failproofai", "package.json"),
      '{ "name": "failproofai", "type": "module", "main": "index.js" }\n',
    );
    await writeFile(join(exp, "node_modules", "failproofai", "index.js"), STUB);
    await writeFile(join(exp, "run.mjs"), RUN);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const run = (state: string, session = "s1") =>
    execFileSync(process.execPath, [join(exp, "run.mjs"), join(exp, "fire-tex.policies.mjs")], {
      cwd: exp,
      env: { ...process.env, FIRE_FAILPROOFAI_STATE: state, RUN_SESSION: session },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });

  it("is JavaScript that imports, registers the portfolio as one policy and decides like fire", async () => {
    const res = JSON.parse(run(join(dir, "state-a")));
    // one failproofai policy: failproofai stops at the first deny, so one per fire policy
    // would hide events from the later ones
    expect(res.names).toEqual(["fire/tex"]);
    expect(res.out.map((o: { event: string; decision: string }) => [o.event, o.decision])).toEqual([
      ["UserPromptSubmit", "allow"],
      ["PreToolUse", "allow"],
      ["PostToolUse", "allow"],
      ["Stop", "instruct"],
      ["Stop", "allow"], // one nudge per rule
    ]);
    expect(res.out[3].message).toMatch(/^The task forbids overfull boxes\./);
    const state = JSON.parse(await readFile(stateFileOf(join(dir, "state-a"), "s1"), "utf8"));
    expect(state.step).toBe(5);
    expect(state.policies["ref-latex-final-log@1"].nudges).toEqual({ "search-final-log": 1 });
  });

  it("keeps every session's state inside the state folder, whatever the session id", async () => {
    const state = join(dir, "state-escape", "inner");
    for (const id of ["..", "../../x", "/etc/passwd", "a/b"]) run(state, id);
    expect((await readdir(join(dir, "state-escape"))).sort()).toEqual(["inner"]);
    const files = (await readdir(state)).filter((f) => f.endsWith(".json"));
    expect(files).toHaveLength(4);
  });

  it("loses no state update when hook processes of one session run at once (the lock)", async () => {
    const state = join(dir, "state-lock");
    await Promise.all(
      Array.from({ length: 6 }, () =>
        spawnAsync(
          process.execPath,
          [join(exp, "run.mjs"), join(exp, "fire-tex.policies.mjs")],
          exp,
          {
            FIRE_FAILPROOFAI_STATE: state,
            RUN_SESSION: "shared",
          },
        ),
      ),
    );
    const s = JSON.parse(await readFile(stateFileOf(state, "shared"), "utf8"));
    expect(s.step).toBe(6 * 5);
  });

  it("answers every event as the native hook does: same host, same log, same state", () => {
    // the same events through `fire hook` on the frozen portfolio, one process per event
    const ws = join(dir, "native");
    const events = [
      {
        hook_event_name: "UserPromptSubmit",
        prompt: "Fix main.tex so pdflatex builds with no Overfull hbox warnings.",
      },
      {
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "pdflatex -interaction=nonstopmode main.tex" },
      },
      {
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: "pdflatex main.tex" },
        tool_response: { stdout: "Output written", exit_code: 0 },
      },
      { hook_event_name: "Stop" },
      { hook_event_name: "Stop" },
    ];
    for (const e of events) {
      const r = runFire(
        ["hook", "--portfolio", join(dir, "portfolios", "tex"), "--workspace", ws],
        {
          input: JSON.stringify({ session_id: "s1", ...e }),
          cwd: dir,
          env: { FIRE_STATE_DIR: "" },
        },
      );
      expect(r.status, r.stderr).toBe(0);
    }
    const adapterState = join(dir, "state-same");
    run(adapterState);
    const verdicts = (file: string) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .map((e) => [e.event, e.verdict.action, e.verdict.message ?? null, e.error ?? null]);
    const native = verdicts(join(ws, ".fire", "hook-log.jsonl"));
    expect(native.map((v) => v[1])).toEqual(["allow", "allow", "allow", "instruct", "allow"]);
    expect(verdicts(join(adapterState, "fire-hook-log.jsonl"))).toEqual(native);
    const st = (f: string) => JSON.parse(readFileSync(f, "utf8")).policies;
    expect(st(stateFileOf(adapterState, "s1"))).toEqual(st(join(ws, ".fire", "state", "s1.json")));
  });

  it("refuses a sidecar whose policy text no longer matches its frozen SHA-256", async () => {
    const side = join(exp, "fire-tex.portfolio.json");
    const original = await readFile(side, "utf8");
    await writeFile(side, original.replace("forbids overfull", "allows overfull"));
    expect(() => run(join(dir, "state-b"))).toThrow(/does not match its frozen SHA-256/);
    await writeFile(side, original);
  });
});
