import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiderHistoryItems, type PrintedItem } from "../../../src/core/ingest/agent-printed.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const AIDER = resolve(REPO_ROOT, "test/fixtures/aider-history");
const aider = (name: string) => readFileSync(join(AIDER, name), "utf8");
const callsOf = (items: PrintedItem[]) => items.filter((i) => i.type === "call");
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");

describe("aider's chat history (real histories)", () => {
  it("reads the edits aider applied and the command it ran, not the ones it quoted or was refused", () => {
    const items = aiderHistoryItems(aider("ran-and-refused.chat.history.md"));
    expect(callsOf(items)).toEqual([
      {
        type: "call",
        tool: "edit",
        args: { path: "components/compliance-agents.tsx" },
        writes: ["components/compliance-agents.tsx"],
      },
      {
        type: "call",
        tool: "shell",
        args: { command: "npm install react-markdown react-syntax-highlighter" },
        command: "npm install react-markdown react-syntax-highlighter",
      },
      {
        type: "call",
        tool: "edit",
        args: { path: "components/compliance-agents.tsx" },
        writes: ["components/compliance-agents.tsx"],
      },
    ]);
    // an edit has aider's own line as its result; a command's output is not in the history
    expect(items.filter((i) => i.type === "result")).toEqual([
      { type: "result", tool: "edit", output: "Applied edit to components/compliance-agents.tsx" },
      { type: "result", tool: "edit", output: "Applied edit to components/compliance-agents.tsx" },
    ]);
    // the model's replies are agent messages (they quote the refused command in a fence)
    const messages = items.filter((i) => i.type === "message").map((i) => i.text);
    expect(messages.some((m) => m.includes("npm install @/components/ui/toast"))).toBe(true);
    // neither the user's lines nor aider's notices are messages
    expect(messages.some((m) => m.startsWith("####") || m.startsWith("> "))).toBe(false);
  });

  it("keeps a refused multi-line command entry out of the actions and out of the replies", () => {
    const items = aiderHistoryItems(aider("refused-multiline.chat.history.md"));
    expect(callsOf(items).map((c) => c.type === "call" && c.writes)).toEqual([
      ["metrics_check.sh"],
    ]);
    expect(callsOf(items).some((c) => c.type === "call" && c.tool === "shell")).toBe(false);
    // the entry's unquoted continuation lines (`export OWNER=…` padded by aider) are no reply
    const messages = items.filter((i) => i.type === "message").map((i) => i.text);
    expect(messages.some((m) => /export OWNER=repository_owner {2,}/.test(m))).toBe(false);
  });

  it("reads nothing from a history without an action or from text that is not one", () => {
    const text = aider("refused-multiline.chat.history.md").replace(
      "> Applied edit to metrics_check.sh",
      "> Did not apply edit to metrics_check.sh (--dry-run)",
    );
    expect(aiderHistoryItems(text)).toEqual([]);
    expect(aiderHistoryItems("> Applied edit to a.py\n> Running make\n")).toEqual([]);
    expect(aiderHistoryItems("")).toEqual([]);
  });
});

describe("Harbor trials: agent logs", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "fire-agent-logs-"));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** A real trial whose agent/ folder is replaced by the given files. */
  const trialWith = (name: string, files: Record<string, string | Buffer>): string => {
    const dir = join(tmp, name);
    cpSync(fixture("harbor-openclaw", "pinchbench-147-kimi2.6", "task-calendar__8A83BnJ"), dir, {
      recursive: true,
    });
    rmSync(join(dir, "agent"), { recursive: true, force: true });
    mkdirSync(join(dir, "agent"));
    for (const [f, body] of Object.entries(files)) writeFileSync(join(dir, "agent", f), body);
    return dir;
  };

  it("reads an aider trial's actions from its chat history", async () => {
    const dir = trialWith("aider", {
      "aider.chat.history.md": aider("ran-and-refused.chat.history.md"),
      "aider.txt": "aider's console output, not read\n",
    });
    const got = await collect([dir]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0]!;
    expect(calls(a).map((c) => [c.tool, c.command, c.writes])).toEqual([
      ["edit", undefined, ["components/compliance-agents.tsx"]],
      ["shell", "npm install react-markdown react-syntax-highlighter", undefined],
      ["edit", undefined, ["components/compliance-agents.tsx"]],
    ]);
    expect(a.outcome).toBe("fail");
  });

  it("reads aider editing a file it was never given as the harness's fault, in a Harbor trial too", async () => {
    const blind = readFileSync(
      resolve(
        REPO_ROOT,
        "test/fixtures/aider-run-folders/2026-05-10T07-43-03Z_sql-injection-fix_aider_qwen3_14b_baseline/aider.chat.history.md",
      ),
      "utf8",
    );
    const dir = trialWith("aider-blind", { "aider.chat.history.md": blind });
    const a = (await collect([dir])).attempts[0]!;
    expect(a.harnessFailure).toMatchObject({
      kind: "withheld-input",
      file: join(dir, "agent", "aider.chat.history.md"),
      line: 82,
    });
    expect(faultOf(a)).toMatchObject({ code: "harness-withheld-input" });
    // a history whose repo listed files to the model: no harness fault
    const seen = trialWith("aider-seen", {
      "aider.chat.history.md": aider("ran-and-refused.chat.history.md"),
    });
    expect((await collect([seen])).attempts[0]!.harnessFailure).toBeUndefined();
  });

  it("names an agent's own JSON event log it could not read, not a setup file beside it", async () => {
    const dir = trialWith("unknown-jsonl", {
      "host-agent-setup.json": '{"installed": true}\n',
      "thinharness-events.jsonl": '{"kind":"step","n":1,"do":"ls"}\n{"kind":"done"}\n',
    });
    const got = await collect([dir]);
    expect(got.attempts[0]!.events).toEqual([]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toContain("thinharness-events.jsonl");
    expect(got.errors[0]).toContain("no actions recognised in this agent log");
    expect(got.errors[0]).not.toContain("other log");
  });

  it("reports a trajectory it could not read once, not again as an unread log", async () => {
    const dir = trialWith("bad-trajectory", {
      "trajectory.json": '{"schema_version": "ATIF-v1.2", "session_id": "s", "steps": "oops"}',
    });
    const got = await collect([dir]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).not.toContain("no actions recognised");
  });

  it("names an agent's own trajectory file it could not read (not Harbor's trajectory.json)", async () => {
    const dir = trialWith("own-trajectory", {
      "mini-swe-agent.trajectory.json": '{"format": "something else", "steps": 3}',
    });
    const got = await collect([dir]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toContain("mini-swe-agent.trajectory.json");
    expect(got.errors[0]).toContain("no actions recognised");
  });

  it("reads pi's JSON events as Harbor's pi agent keeps them (agent/pi.txt)", async () => {
    const events = readFileSync(
      resolve(
        REPO_ROOT,
        "test/fixtures/harbor-pi/configure-git-webserver__dg6SgTQ/agent/pi-events.jsonl",
      ),
      "utf8",
    );
    const got = await collect([trialWith("pi", { "pi.txt": events })]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0]!;
    expect(calls(a).map((c) => c.tool)).toEqual(["bash"]);
    expect(calls(a)[0]?.command).toMatch(/^set -eu; if printenv OPENAI_API_KEY/);
  });

  it("says which agent log held no recognised actions, and loads the attempt without any", async () => {
    const dir = trialWith("unknown-log", {
      "someagent.txt": "Thinking...\nI would run `rm -rf build` next.\nDone.\n",
      "empty.log": "",
      "binary.log": Buffer.from([0, 255, 1, 254, 0x1b, 0x5b, 0x30, 0x6d, 10, 0]),
    });
    const got = await collect([dir]);
    expect(got.attempts).toHaveLength(1);
    expect(got.attempts[0]!.events).toEqual([]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toContain("someagent.txt");
    expect(got.errors[0]).toContain("no actions recognised in this agent log");
    expect(got.errors[0]).toContain("nor in 1 other log(s)");
    // an aider history that records no action is reported the same way
    const none = trialWith("aider-no-action", {
      "aider.chat.history.md": aider("refused-multiline.chat.history.md").replace(
        "> Applied edit to metrics_check.sh",
        "> Did not apply edit to metrics_check.sh (--dry-run)",
      ),
    });
    const quiet = await collect([none]);
    expect(quiet.attempts[0]!.events).toEqual([]);
    expect(quiet.errors.map((e) => e.includes("aider.chat.history.md"))).toEqual([true]);
  });

  it("reports nothing for a trial whose agent left no log", async () => {
    const got = await collect([trialWith("no-log", {})]);
    expect(got.errors).toEqual([]);
    expect(got.attempts[0]!.events).toEqual([]);
  });
});
