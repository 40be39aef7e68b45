import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/core/model/attempt.js";
import { initState, step } from "../../../src/core/policy/evaluator.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { collectPatterns } from "../../../src/core/policy/patterns.js";
import type { Firing } from "../../../src/core/policy/types.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { bash, events, prompt, result, stop } from "./helpers.js";

const { policies, errors } = loadPolicies([resolve(REPO_ROOT, "candidates/reference")]);

/** Runs the whole portfolio over a trace; returns the firings of one family's policy. */
function firings(family: string, evs: Event[]): string[] {
  const all: Firing[] = [];
  let s = initState();
  for (const e of evs) {
    const r = step(policies, s, e);
    all.push(...r.firings);
    s = r.state;
  }
  const id = `ref-${family}`;
  return all.filter((f) => f.policyId === id).map((f) => `${f.ruleId}@${f.eventIndex}:${f.action}`);
}

const edit = (path: string, content: string): Omit<Event, "index"> => ({
  kind: "tool_call",
  tool: "Write",
  input: JSON.stringify({ file_path: path, content }),
  writes: [path],
});

describe("reference portfolio", () => {
  it("loads all eight families with eleven intervention rules", () => {
    expect(errors.map((e) => e.format())).toEqual([]);
    expect(policies.map((p) => p.family).sort()).toEqual([
      "binary-equivalence",
      "database-evidence",
      "dataset-token-accounting",
      "deployment-preservation",
      "exact-replacement",
      "latex-final-log",
      "multi-answer-enumeration",
      "service-persistence",
    ]);
    expect(policies.reduce((n, p) => n + p.candidate.rules.length, 0)).toBe(11);
  });

  const serviceTask = "Serve the app on port 8080 and keep the server running after you finish.";
  it("service-persistence: fires at stop after a non-detached launch", () => {
    const evs = events(
      prompt(serviceTask),
      bash("python3 -m http.server 8080 &"),
      bash("curl -s localhost:8080/"),
      stop(),
    );
    expect(firings("service-persistence", evs)).toEqual(["detach-and-probe@3:instruct"]);
  });
  it("service-persistence near miss: `setsid … &` then a later separate curl", () => {
    const evs = events(
      prompt(serviceTask),
      bash("setsid nohup python3 -m http.server 8080 > /tmp/s.log 2>&1 < /dev/null &"),
      bash("sleep 1; curl -sf localhost:8080/"),
      stop(),
    );
    expect(firings("service-persistence", evs)).toEqual([]);
    // …but a detached launch probed only in the same call still fires
    const same = events(
      prompt(serviceTask),
      bash("setsid python3 -m http.server 8080 & sleep 1; curl localhost:8080"),
      stop(),
    );
    expect(firings("service-persistence", same)).toEqual(["detach-and-probe@2:instruct"]);
  });

  const deployTask =
    "Deploy the site to /var/www/html with a post-receive hook; the deployed page must still be served when the tests run.";
  it("deployment-preservation: denies removing the document root after a good probe", () => {
    const evs = events(
      prompt(deployTask),
      bash("curl -s http://localhost/"),
      result("<h1>Welcome</h1>"),
      bash("rm -rf /var/www/html/*"),
    );
    expect(firings("deployment-preservation", evs)).toEqual(["keep-deployment@3:deny"]);
  });
  it("deployment-preservation near miss: the same cleanup before any successful probe", () => {
    const evs = events(
      prompt(deployTask),
      bash("curl -s http://localhost/"),
      result("curl: (7) Failed to connect to localhost port 80: Connection refused", 7),
      bash("rm -rf /var/www/html/*"),
      bash("git reset --hard HEAD~1"),
    );
    expect(firings("deployment-preservation", evs)).toEqual([]);
  });

  const dbTask =
    "The service crashed and /data/app.db looks corrupted. Recover every row of the orders table from the SQLite database.";
  it("database-evidence: denies sqlite3 before a copy with sidecars, repeatedly, until the copy exists", () => {
    const evs = events(
      prompt(dbTask),
      bash("ls -la /data"),
      bash("sqlite3 /data/app.db '.tables'"),
      bash("python3 -c \"import sqlite3; sqlite3.connect('/data/app.db')\""),
      bash("cp /data/app.db /data/app.db-wal /data/app.db-shm /tmp/ev/"),
      bash("sqlite3 /tmp/ev/app.db '.tables'"),
    );
    expect(firings("database-evidence", evs)).toEqual([
      "copy-before-open@2:deny",
      "copy-before-open@3:deny",
    ]);
  });
  it("database-evidence near miss: the db directory copied with its -wal file before sqlite3 opened it", () => {
    const evs = events(
      prompt(dbTask),
      bash("cp -a /data /tmp/evidence"),
      bash("sqlite3 /tmp/evidence/app.db 'PRAGMA integrity_check'"),
      bash("which sqlite3"),
    );
    expect(firings("database-evidence", evs)).toEqual([]);
  });

  const replTask =
    "In every file under /app/config replace the hostname old.example.com with new.example.com and the API key sk-live-123 with <API_KEY>.";
  it("exact-replacement: allowlist at the first write, credential check, diff at stop", () => {
    const evs = events(
      prompt(replTask),
      bash("grep -rn old.example.com /app/config"),
      bash("sed -i 's/old.example.com/new.example.com/g' /app/config/a.conf"),
      edit("/app/config/keys.env", "API_KEY=<API_KEY>\n"),
      stop(),
    );
    expect(firings("exact-replacement", evs)).toEqual([
      "allowlist-before-write@2:instruct",
      "credential-placeholders@3:instruct",
      "diff-before-stop@4:instruct",
    ]);
  });
  it("exact-replacement near miss: a diff after the last write and no credential edit", () => {
    const task = "Replace every tab with four spaces in /app/src/main.c.";
    const evs = events(
      prompt(task),
      bash("cp /app/src/main.c /tmp/orig.c"),
      bash("sed -i 's/\\t/    /g' /app/src/main.c"),
      bash("diff /tmp/orig.c /app/src/main.c | head"),
      stop(),
    );
    expect(firings("exact-replacement", evs)).toEqual(["allowlist-before-write@2:instruct"]);
    expect(
      firings(
        "exact-replacement",
        events(prompt("Fix the failing test."), bash("sed -i 's/a/b/' x.py"), stop()),
      ),
    ).toEqual([]);
  });

  const texTask =
    "Compile /app/paper.tex with pdflatex. The final log must contain no Overfull \\hbox warnings.";
  it("latex-final-log: fires at stop when the last build's log was not searched", () => {
    const evs = events(
      prompt(texTask),
      bash("pdflatex paper.tex"),
      bash("grep -c 'Overfull' paper.log"),
      bash("pdflatex paper.tex"),
      stop(),
    );
    expect(firings("latex-final-log", evs)).toEqual(["search-final-log@4:instruct"]);
  });
  it("latex-final-log near miss: the final log searched after the last build", () => {
    const evs = events(
      prompt(texTask),
      bash("pdflatex paper.tex"),
      bash("grep -n 'Overfull \\\\hbox' paper.log"),
      stop(),
    );
    expect(firings("latex-final-log", evs)).toEqual([]);
  });

  const binTask =
    "Re-implement the /app/bin/squash binary in C as /app/squash.c; its output must be byte-for-byte identical to the original.";
  it("binary-equivalence: instructs at the first candidate run and at stop without diverse comparisons", () => {
    const evs = events(
      prompt(binTask),
      bash("gcc -O2 -o squash squash.c"),
      bash("./squash < in.txt > out.txt"),
      bash("./squash < in2.txt"),
      stop(),
    );
    expect(firings("binary-equivalence", evs)).toEqual([
      "compare-at-first-run@2:instruct",
      "diverse-inputs-at-stop@4:instruct",
    ]);
  });
  it("binary-equivalence near miss: a task that is not a re-implementation", () => {
    const evs = events(
      prompt("Fix the segfault in ./tool when given an empty file."),
      bash("gcc -o tool tool.c"),
      bash("./tool empty.txt"),
      stop(),
    );
    expect(firings("binary-equivalence", evs)).toEqual([]);
  });

  const tokTask =
    "Count the total number of tokens in the question and answer fields of the train split of the dataset, using the Qwen tokenizer. Write the integer to /app/answer.txt.";
  it("dataset-token-accounting: fires at stop without per-field reconciliation", () => {
    const evs = events(prompt(tokTask), bash("python3 count.py"), result("123456"), stop());
    expect(firings("dataset-token-accounting", evs)).toEqual(["reconcile-fields@3:instruct"]);
  });
  it("dataset-token-accounting near miss: per-field subtotals printed before stopping", () => {
    const evs = events(
      prompt(tokTask),
      bash("python3 -c 'print(per_field)' # per-field subtotals"),
      stop(),
    );
    expect(firings("dataset-token-accounting", evs)).toEqual([]);
    expect(
      firings(
        "dataset-token-accounting",
        events(prompt("Count the lines of /app/log.txt."), stop()),
      ),
    ).toEqual([]);
  });

  it("multi-answer-enumeration: fires at stop on an all-valid-answers, one-per-line contract", () => {
    const task =
      "Find all valid words that can be formed from the letters in /app/letters.txt and write them to /app/words.txt, one per line.";
    expect(
      firings("multi-answer-enumeration", events(prompt(task), bash("python3 solve.py"), stop())),
    ).toEqual(["emit-all@2:instruct"]);
  });
  it("multi-answer-enumeration near miss: 'one per line' alone (a chess line) does not route", () => {
    const chess =
      "The position in /app/position.fen is a mate in two for white. Write the winning line to /app/solution.txt in UCI notation, one per line.";
    expect(firings("multi-answer-enumeration", events(prompt(chess), stop()))).toEqual([]);
  });
});

describe("reference portfolio hygiene", () => {
  it("names no task, fixture path or demo task id in any rule", async () => {
    const { readFileSync, readdirSync } = await import("node:fs");
    const dir = resolve(REPO_ROOT, "candidates/reference");
    const manifest = JSON.parse(
      readFileSync(resolve(REPO_ROOT, "traces/generated/manifest.json"), "utf8"),
    ) as { tasks: { taskId: string }[] };
    for (const f of readdirSync(dir)) {
      const text = readFileSync(resolve(dir, f), "utf8");
      for (const t of manifest.tasks)
        expect(text.includes(t.taskId), `${f} names ${t.taskId}`).toBe(false);
    }
    for (const p of policies) {
      for (const site of collectPatterns(p.candidate)) {
        expect(site.source, `${p.id} ${site.path.join(".")}`).not.toMatch(
          /\/app\b|\/tmp\b|\/data\b|\/home\b/,
        );
      }
    }
  });
});
