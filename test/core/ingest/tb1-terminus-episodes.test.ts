import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { screenOutput } from "../../../src/core/ingest/terminus-episodes.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { collect } from "./collect.js";

// A minimal TB1 run in the format the harness writes for the Terminus agent when the task
// disables asciinema: no `sessions/` folder, only `agent-logs/episode-N/{prompt.txt,
// response.json}`, `commands.txt` and the panes. Written here, record by record.
const tmp = mkdtempSync(join(tmpdir(), "fire-tb1-terminus-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HOST = "root@f796a07054fe:/app#";
const SYSTEM =
  "You are an AI assistant tasked with solving command-line tasks...\nInstruction:\nRun ./run.sh\n";

interface Ep {
  prompt: string;
  keystrokes: string[];
  complete: boolean;
}

function trial(name: string, eps: Ep[], postAgent: string, resolved = false): string {
  const run = join(tmp, name);
  const dir = join(run, "pipeline", `pipeline.1-of-1.${name}`);
  eps.forEach((e, i) => {
    const d = join(dir, "agent-logs", `episode-${i}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "prompt.txt"), e.prompt);
    writeFileSync(
      join(d, "response.json"),
      JSON.stringify(
        {
          state_analysis: "…",
          explanation: "…",
          commands: e.keystrokes.map((k) => ({ keystrokes: k, is_blocking: true, timeout_sec: 5 })),
          is_task_complete: e.complete,
        },
        null,
        4,
      ),
    );
  });
  mkdirSync(join(dir, "panes"), { recursive: true });
  writeFileSync(join(dir, "panes", "post-agent.txt"), postAgent);
  writeFileSync(join(dir, "panes", "post-test.txt"), `${HOST} bash /tests/run-tests.sh\n`);
  writeFileSync(
    join(dir, "commands.txt"),
    `${eps.flatMap((e) => e.keystrokes.map((k) => `'${k.replace(/\n/g, "\\n")}'`)).join("\n")}\n['bash ', '/tests/run-tests.sh', 'Enter']\n`,
  );
  const result = {
    id: "6d1f",
    trial_name: `pipeline.1-of-1.${name}`,
    task_id: "pipeline",
    instruction: "Run ./run.sh",
    is_resolved: resolved,
    failure_mode: "unset",
    parser_results: { test_outputs: resolved ? "passed" : "failed" },
  };
  writeFileSync(join(dir, "results.json"), JSON.stringify(result, null, 4));
  writeFileSync(
    join(run, "run_metadata.json"),
    JSON.stringify({ run_id: name, agent_name: "terminus", model_name: "m" }),
  );
  writeFileSync(join(run, "results.json"), JSON.stringify({ id: "r", results: [result] }));
  return run;
}

const events = (a: Attempt) => a.events.map((e) => [e.kind, e.command ?? e.output ?? ""]);

describe("Terminus episodes of a TB1 run without session recordings", () => {
  it("reads each episode's screen as the output of the commands before it, the last from the post-agent pane", async () => {
    const run = trial(
      "stop-in-same-turn",
      [
        { prompt: SYSTEM, keystrokes: ["mkdir -p pipe logs\n"], complete: false },
        {
          prompt: `${HOST} mkdir -p pipe logs; tmux wait -S done\n${HOST}\n\n\n`,
          keystrokes: ["./run.sh\n"],
          complete: true,
        },
      ],
      // the run ended in the turn that started ./run.sh: only the pane saw the error
      `${HOST} mkdir -p pipe logs; tmux wait -S done\n${HOST} ./run.sh; tmux wait -S done\n-bash: ./run.sh: Permission denied\n${HOST}\n\n\n\n`,
    );
    const got = await collect([run]);
    expect(got.errors).toEqual([]);
    expect(events(got.attempts[0]!)).toEqual([
      ["prompt", ""],
      ["tool_call", "mkdir -p pipe logs"],
      ["tool_result", `${HOST} mkdir -p pipe logs; tmux wait -S done\n${HOST}`],
      ["tool_call", "./run.sh"],
      // from the prompt line that typed it, not from the error line quoting it
      [
        "tool_result",
        `${HOST} ./run.sh; tmux wait -S done\n-bash: ./run.sh: Permission denied\n${HOST}`,
      ],
      ["stop", ""],
    ]);
  });

  it("keeps the harness's timeout note, and does not stop a run the model never declared complete", async () => {
    const run = trial(
      "timed-out",
      [
        { prompt: SYSTEM, keystrokes: ["./run.sh\n"], complete: false },
        {
          prompt:
            "Previous command:\nkeystrokes='./run.sh\\n' is_blocking=True timeout_sec=40.0\n\nThe previous command timed out after 40.0 seconds\n\nIt is possible that the command is not yet finished executing.\n\nHere is the current state of the terminal:\n\nno server running on /tmp/tmux-0/default\n",
          keystrokes: ["ls -la\n"],
          complete: false,
        },
      ],
      "no server running on /tmp/tmux-0/default\n",
    );
    const got = await collect([run]);
    const a = got.attempts[0]!;
    expect(events(a).slice(1)).toEqual([
      ["tool_call", "./run.sh"],
      [
        "tool_result",
        "The previous command timed out after 40.0 seconds\nno server running on /tmp/tmux-0/default",
      ],
      ["tool_call", "ls -la"],
      ["tool_result", "no server running on /tmp/tmux-0/default"],
    ]);
  });

  it("an episode whose response is missing still hands its screen to the commands before it", async () => {
    const run = trial(
      "missing-response",
      [
        { prompt: SYSTEM, keystrokes: ["cat notes.txt\n"], complete: false },
        {
          prompt: `${HOST} cat notes.txt; tmux wait -S done\nhello\n${HOST}\n`,
          keystrokes: [],
          complete: false,
        },
      ],
      `${HOST}\n`,
    );
    rmSync(
      join(
        run,
        "pipeline",
        "pipeline.1-of-1.missing-response",
        "agent-logs",
        "episode-1",
        "response.json",
      ),
    );
    const got = await collect([run]);
    expect(events(got.attempts[0]!).slice(1)).toEqual([
      ["tool_call", "cat notes.txt"],
      ["tool_result", `${HOST} cat notes.txt; tmux wait -S done\nhello\n${HOST}`],
    ]);
  });

  it("a command the harness never sent (the batch stopped at a timeout) is not a call", async () => {
    const run = trial(
      "batch-cut",
      [
        {
          prompt: SYSTEM,
          keystrokes: ["cat > run.sh << EOF\n", "chmod +x run.sh\n", "./run.sh\n"],
          complete: false,
        },
        {
          prompt: `${HOST} cat > run.sh << EOF; tmux wait -S done\n> chmod +x run.sh; tmux wait -S done\n>\n`,
          keystrokes: ["ls -l\n"],
          complete: true,
        },
      ],
      `> ls -l; tmux wait -S done\n>\n`,
    );
    // commands.txt as the harness wrote it: ./run.sh timed out waiting, so it was never typed
    writeFileSync(
      join(run, "pipeline", "pipeline.1-of-1.batch-cut", "commands.txt"),
      "'cat > run.sh << EOF\\n'\n'chmod +x run.sh\\n'\n'ls -l\\n'\n['bash ', '/tests/run-tests.sh', 'Enter']\n",
    );
    const got = await collect([run]);
    expect(events(got.attempts[0]!).slice(1)).toEqual([
      ["tool_call", "cat > run.sh << EOF"],
      ["tool_call", "chmod +x run.sh"],
      [
        "tool_result",
        `${HOST} cat > run.sh << EOF; tmux wait -S done\n> chmod +x run.sh; tmux wait -S done\n>`,
      ],
      ["tool_call", "ls -l"],
      ["tool_result", "> ls -l; tmux wait -S done\n>"],
      ["stop", ""],
    ]);
  });

  it("cuts a screen at the last prompt line that typed the command, else keeps it whole", () => {
    const screen = `${HOST} ls; tmux wait -S done\na\n${HOST} ls; tmux wait -S done\nb\n${HOST}\n`;
    expect(screenOutput(screen, "ls\n")).toBe(`${HOST} ls; tmux wait -S done\nb\n${HOST}`);
    expect(screenOutput(screen, "pwd\n")).toBe(screen.trimEnd());
    // a heredoc's continuation prompt counts as a prompt
    expect(screenOutput("> EOF\n$ \n", "EOF")).toBe("> EOF\n$");
  });
});

describe("commands.txt of a TB1 trial with neither a recording nor episodes", () => {
  it("gives the keystrokes the agent typed, not the harness's or an installed agent's launch lists", async () => {
    const run = trial(
      "typed-only",
      [
        { prompt: SYSTEM, keystrokes: ["mkdir -p pipe logs\n"], complete: false },
        {
          prompt: `${HOST}\n`,
          keystrokes: ["cat > a.awk << 'EOF'\n{ print }\nEOF\n"],
          complete: true,
        },
      ],
      `${HOST}\n`,
    );
    const dir = join(run, "pipeline", "pipeline.1-of-1.typed-only");
    rmSync(join(dir, "agent-logs"), { recursive: true });
    // what the harness writes: the repr of each send_keys argument, one a line
    writeFileSync(
      join(dir, "commands.txt"),
      [
        "'mkdir -p pipe logs\\n'",
        `"cat > a.awk << 'EOF'\\n{ print }\\nEOF\\n"`,
        "'C-c'",
        "''",
        "'echo \\xe9t\\u00e9 \\\\n'",
        "['bash ', '/tests/run-tests.sh', 'Enter']",
        "",
      ].join("\n"),
    );
    const got = await collect([run]);
    expect(got.errors).toEqual([]);
    expect(events(got.attempts[0]!).slice(1)).toEqual([
      ["tool_call", "mkdir -p pipe logs"],
      ["tool_call", "cat > a.awk << 'EOF'\n{ print }\nEOF"],
      ["tool_call", "C-c"],
      ["tool_call", "echo été \\n"],
      ["stop", ""],
    ]);
  });

  it("an installed agent's trial (launch lists only) carries no invented action", async () => {
    const run = trial("installed", [], `${HOST}\n`);
    const dir = join(run, "pipeline", "pipeline.1-of-1.installed");
    writeFileSync(
      join(dir, "commands.txt"),
      "['claude --verbose -p \\'Run ./run.sh\\'', 'Enter']\n['bash ', '/tests/run-tests.sh', 'Enter']\n",
    );
    const got = await collect([run]);
    expect(got.attempts[0]!.events.map((e) => e.kind)).toEqual(["prompt"]);
  });
});
