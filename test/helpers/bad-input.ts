import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import type { AttemptInput } from "../../src/core/model/attempt.js";
import { fixture } from "./paths.js";

/** One problem the corpus contains: reported once, as `file[:line]: reason`. */
export interface ExpectedError {
  /** Path relative to the corpus root. */
  rel: string;
  /** Absolute path, as discovery reports it when given the absolute root. */
  file: string;
  line?: number;
  reason: RegExp;
}

export interface BadInputCorpus {
  root: string;
  expected: ExpectedError[];
  /** Attempts that must still load (good files plus good lines around bad ones). */
  goodAttempts: number;
  cleanup(): void;
}

const attempt = (n: number): AttemptInput => ({
  id: `fire-good-${n}`,
  source: { format: "atif", path: `elsewhere/trajectory-${n}.json` },
  taskId: `task-${n}`,
  taskText: `Do thing ${n}`,
  arm: "baseline",
  outcome: n % 2 ? "fail" : "pass",
  reward: n % 2 ? 0 : 1,
  events: [
    { index: 0, kind: "prompt", role: "user", input: `Do thing ${n}` },
    { index: 1, kind: "tool_call", tool: "Bash", command: "ls -la", callId: "c1" },
  ],
});

/**
 * Build the bad-input corpus in a temp folder, next to good files:
 * truncated JSONL line, invalid JSON, valid JSON of the wrong shape (a whole
 * file and a JSONL line), empty file, binary file, a 50 MB single line,
 * unknown format, an unreadable file, symlink loops, and a Harbor job with one
 * broken trial. "Unreadable" is a FIFO: tests run as root, so chmod 000 would
 * still be readable; a FIFO is never a readable trace file and must not hang.
 */
export function makeBadInputCorpus(
  opts: { dir?: string; hugeLineBytes?: number } = {},
): BadInputCorpus {
  const root = opts.dir ?? mkdtempSync(join(tmpdir(), "fire-bad-input-"));
  const good = join(root, "good");
  const bad = join(root, "bad");
  mkdirSync(good, { recursive: true });
  mkdirSync(bad, { recursive: true });
  const expected: ExpectedError[] = [];
  const expect = (rel: string, line: number | undefined, reason: RegExp) =>
    expected.push({ rel, file: join(root, rel), line, reason });

  // Good files (3 attempts) and a README that is skipped quietly.
  copyFileSync(
    fixture("atif-golden/hello-world-timeout.trajectory.json"),
    join(good, "timeout.trajectory.json"),
  );
  copyFileSync(
    fixture("real-clients/claude-rm-deny/session.jsonl"),
    join(good, "claude-session.jsonl"),
  );
  copyFileSync(
    fixture("real-clients/codex-rm-deny/session.jsonl"),
    join(good, "rollout-codex.jsonl"),
  );
  writeFileSync(join(good, "README.md"), "# notes\nnot a trace\n");

  // Truncated last line of a real Claude transcript: 41 good lines still load (1 attempt).
  const lines = readFileSync(fixture("real-clients/claude-http-log/session.jsonl"), "utf8")
    .trimEnd()
    .split("\n");
  const last = lines.pop()!;
  writeFileSync(
    join(bad, "truncated.jsonl"),
    `${lines.join("\n")}\n${last.slice(0, Math.floor(last.length / 2))}`,
  );
  expect("bad/truncated.jsonl", lines.length + 1, /invalid JSON/);

  // fire JSONL with an invalid-JSON line and a wrong-shape line between good ones (2 attempts).
  const fire = [
    serializeAttempt(attempt(1)),
    '{"id":"x","source":{"format":"atif"',
    '{"id":"y","source":{"format":"atif","path":"p"}}',
    serializeAttempt(attempt(2)),
  ];
  writeFileSync(join(bad, "fire-mixed.jsonl"), `${fire.join("\n")}\n`);
  expect("bad/fire-mixed.jsonl", 2, /invalid JSON/);
  expect("bad/fire-mixed.jsonl", 3, /expected a fire attempt record/);

  // Whole files: invalid JSON, wrong shape, empty, binary, unknown format.
  writeFileSync(
    join(bad, "invalid.json"),
    '{\n  "schema_version": "ATIF-v1.6",\n  "steps": [ {"step_id": 1,, } ]\n}\n',
  );
  expect("bad/invalid.json", 3, /invalid JSON/);
  writeFileSync(
    join(bad, "wrong-shape.json"),
    JSON.stringify({ schema_version: "ATIF-v1.5", session_id: "s", steps: "none" }),
  );
  expect("bad/wrong-shape.json", undefined, /expected an ATIF trajectory.*steps/);
  writeFileSync(join(bad, "empty.jsonl"), "");
  expect("bad/empty.jsonl", undefined, /empty file/);
  writeFileSync(
    join(bad, "binary.dat"),
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0, 0, 0, 255, 254]),
  );
  expect("bad/binary.dat", undefined, /binary file/);
  writeFileSync(
    join(bad, "unknown.jsonl"),
    '{"event":"deploy","ok":true}\n{"event":"rollback","ok":false}\n',
  );
  expect("bad/unknown.jsonl", undefined, /unknown JSONL format/);

  // A 50 MB single line between two good Claude rows: reported, the rows around it load (1 attempt).
  const claude = readFileSync(fixture("real-clients/claude-rm-deny/session.jsonl"), "utf8").split(
    "\n",
  );
  const user = claude.find((l) => l.includes('"type":"user"') && l.includes("Clean the build"))!;
  const assistant = claude.find(
    (l) => l.includes('"type":"assistant"') && l.includes('"rm -rf build"'),
  )!;
  const huge = `{"type":"user","sessionId":"huge","message":{"role":"user","content":"${"x".repeat(opts.hugeLineBytes ?? 50 * 1024 * 1024)}"}}`;
  writeFileSync(join(bad, "huge-line.jsonl"), `${user}\n${huge}\n${assistant}\n`);
  expect("bad/huge-line.jsonl", 2, /line too long/);

  // Unreadable: a FIFO where a trace file is expected.
  execFileSync("mkfifo", [join(bad, "fifo.jsonl")]);
  expect("bad/fifo.jsonl", undefined, /unreadable: a FIFO/);

  // Symlink loops: a folder linking back to its parent, and a link to itself.
  mkdirSync(join(bad, "loop"));
  symlinkSync("..", join(bad, "loop", "back"));
  expect("bad/loop/back", undefined, /symlink loop/);
  symlinkSync("self-link.json", join(bad, "self-link.json"));
  expect("bad/self-link.json", undefined, /symlink loop/);

  // Harbor job with one good trial (real fixture) and one broken trial (1 attempt).
  const job = join(bad, "job");
  mkdirSync(job);
  writeFileSync(
    join(job, "result.json"),
    JSON.stringify({
      id: "job-bad-input",
      started_at: "2026-05-27T10:00:00Z",
      n_total_trials: 2,
      stats: { n_trials: 2, n_errors: 1 },
    }),
  );
  cpSync(
    fixture("harbor-openclaw/pinchbench-147-kimi2.6/task-calendar__8A83BnJ"),
    join(job, "task-calendar__8A83BnJ"),
    { recursive: true },
  );
  execFileSync("chmod", ["-R", "u+w", job]); // fixtures are read-only; keep the copy removable
  mkdirSync(join(job, "trial-broken", "agent"), { recursive: true });
  writeFileSync(
    join(job, "trial-broken", "result.json"),
    '{\n  "task_name": "pinchbench/task-broken",\n  "trial_name": "trial-broken",\n  "verifier_result": {"rewards": {"reward": 0.5}\n',
  );
  expect("bad/job/trial-broken/result.json", 5, /invalid JSON/);

  return {
    root,
    expected,
    goodAttempts: 8,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
