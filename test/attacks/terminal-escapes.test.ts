import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import type { AttemptInput } from "../../src/core/model/attempt.js";
import { printable } from "../../src/core/printable.js";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { demoCopy, KEY, renderApp, waitFor } from "../ui/helpers.js";

/** Clear screen, set the window title (OSC 0), a clipboard write (OSC 52), a bidi override. */
const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007\u202eevil\u009b31m";

function hostileWorkspace(taskId = "esc-task", task = "Fix the build"): string {
  const ws = mkdtempSync(join(tmpdir(), "fire-escapes-"));
  mkdirSync(join(ws, "traces"));
  const attempt: AttemptInput = {
    id: "esc-attempt-1",
    source: { format: "atif", path: "elsewhere/trajectory.json" },
    taskId,
    taskText: `${task} ${HOSTILE}`,
    arm: "baseline",
    outcome: "fail",
    reward: 0,
    events: [
      { index: 0, kind: "prompt", role: "user", input: `Fix the build ${HOSTILE}` },
      { index: 1, kind: "tool_call", tool: "Bash", command: `echo ${HOSTILE}`, callId: "c1" },
      { index: 2, kind: "tool_result", callId: "c1", output: `out ${HOSTILE}` },
      { index: 3, kind: "stop" },
    ],
  };
  writeFileSync(join(ws, "traces", "esc.jsonl"), `${serializeAttempt(attempt)}\n`);
  return ws;
}

const RAW = /[\u001b\u0007\u009b\u202e]/;

describe("terminal escapes from traces", () => {
  it("printable() keeps tab and newline and makes every control visible", () => {
    expect(printable("a\tb\nc")).toBe("a\tb\nc");
    expect(printable("\u001b[31mred")).toBe("␛[31mred");
    expect(printable(HOSTILE)).not.toMatch(RAW);
    expect(printable("plain")).toBe("plain");
    // the bidi marks JSON output escapes too (Arabic letter mark, left-to-right, right-to-left)
    expect(printable("a\u061cb\u200ec\u200fd")).toBe("a<U+061C>b<U+200E>c<U+200F>d");
  });

  it("never reach the terminal through show, attempts and triage", () => {
    const ws = hostileWorkspace();
    for (const args of [["show", "esc-attempt-1"], ["attempts"], ["triage"]]) {
      const r = runFire([...args, "--workspace", ws], { cwd: ws });
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args[0]).not.toMatch(RAW);
    }
    const shown = runFire(["show", "esc-attempt-1", "--workspace", ws], { cwd: ws }).stdout;
    expect(shown).toContain("␛[2J");
  });

  it("never reach the terminal through route, mine and clusters, from a task id too", async () => {
    const ws = hostileWorkspace(`esc-task${HOSTILE}`, "Keep the server running and reachable");
    cpSync(join(REPO_ROOT, "candidates"), join(ws, "candidates"), { recursive: true });
    for (const args of [["route"], ["mine"], ["clusters"], ["triage"]]) {
      const r = await fireIn([...args, "--workspace", ws], { cwd: ws });
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args[0]).not.toMatch(RAW);
      expect(r.stderr, args[0]).not.toMatch(RAW);
    }
    // the routing audit names the hostile task, neutralised
    const route = await fireIn(["route", "--workspace", ws], { cwd: ws });
    expect(route.stdout).toContain("esc-task␛[2J");
  });

  it("commands print human text only through the one writer that neutralises it", () => {
    // `fire export` writes data (JSONL / CSV) byte for byte; every other command prints
    // through cli/util/out.ts (print / printResult), which makes trace text printable.
    const dir = join(REPO_ROOT, "src/cli/commands");
    const raw = readdirSync(dir)
      .filter((f) => f.endsWith(".ts") && f !== "export.ts")
      .filter((f) => readFileSync(join(dir, f), "utf8").includes("process.stdout.write"));
    expect(raw).toEqual([]);
  });

  it("commands write on stderr through the same neutraliser, but for their own cursor moves", () => {
    const dir = join(REPO_ROOT, "src/cli/commands");
    const raw = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) =>
        [...readFileSync(join(dir, f), "utf8").matchAll(/process\.stderr\.write\(([^)]*)\)/g)]
          .map((m) => m[1] ?? "")
          .filter((arg) => !/^"(?:\\r|\\n|\\x1b\[K)+"$/.test(arg))
          .map((arg) => `${f}: ${arg}`),
      );
    expect(raw).toEqual([]);
  });

  it("never reach the terminal through the workbench", async () => {
    const ws = hostileWorkspace();
    const app = renderApp(ws);
    await app.see("1 attempts");
    await app.press("/");
    await app.see("type to search");
    await app.press(..."esc-attempt".split(""));
    await app.see("esc-attempt-1");
    expect(app.frame()).not.toMatch(RAW);
    await app.press(KEY.enter);
    await app.see("Fix the build");
    expect(app.frame()).not.toMatch(RAW);
    expect(app.frame()).toContain("␛");
    app.unmount();
  });

  it("no file of the workbench draws text but through its one neutralising Text", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    const raw = files(join(REPO_ROOT, "src/ui"))
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith("components/Text.tsx"))
      .filter((f) => /import \{[^}]*\bText\b[^}]*\} from "ink"/.test(readFileSync(f, "utf8")));
    expect(raw).toEqual([]);
  });

  it("never reach the terminal from any workbench screen (task id, agent, model, title)", async () => {
    const ws = demoCopy().dir;
    const attempt: AttemptInput = {
      id: "esc-attempt-1",
      source: { format: "atif", path: "elsewhere/trajectory.json" },
      taskId: `esc-task${HOSTILE}`,
      taskText: `Keep the server running ${HOSTILE}`,
      agent: `agent${HOSTILE}`,
      model: `model${HOSTILE}`,
      arm: "baseline",
      outcome: "fail",
      reward: 0,
      events: [
        { index: 0, kind: "prompt", role: "user", input: `Keep the server running ${HOSTILE}` },
        { index: 1, kind: "tool_call", tool: "Bash", command: `echo ${HOSTILE}`, callId: "c1" },
        { index: 2, kind: "tool_result", callId: "c1", output: `out ${HOSTILE}` },
        { index: 3, kind: "stop" },
      ],
    };
    writeFileSync(join(ws, "traces", "esc.jsonl"), `${serializeAttempt(attempt)}\n`);
    const ref = join(ws, "candidates/reference/binary-equivalence.yaml"); // listed first
    const yamlHostile = "\\e]0;pwned\\a\\e]52;c;ZXZpbA==\\a\\u202eevil\\x9b31m";
    writeFileSync(
      ref,
      readFileSync(ref, "utf8").replace(/^title: .*$/m, `title: "Keep serving ${yamlHostile}"`),
    );
    const app = renderApp(ws, { columns: 120, rows: 40 });
    await app.see("attempts");
    const seen: string[] = [];
    for (const screen of ["1", "2", "3", "4", "5", "6", "7"]) {
      await app.press(screen);
      await waitFor(() => !/loading [A-Z]/.test(app.frame()), app.frame);
      for (const key of [KEY.down, KEY.enter]) {
        expect(app.frame(), `screen ${screen}`).not.toMatch(RAW);
        seen.push(app.frame());
        await app.press(key);
        await waitFor(() => !/loading [A-Z]/.test(app.frame()), app.frame);
      }
      expect(app.frame(), `screen ${screen}`).not.toMatch(RAW);
      await app.press(KEY.esc);
    }
    // the hostile strings were drawn, neutralised (task id and candidate title at least)
    expect(seen.join("\n")).toContain("esc-task␛[2J");
    expect(seen.join("\n")).toContain("Keep serving ␛]0;pwned");
    app.unmount();
  }, 60_000);
});
