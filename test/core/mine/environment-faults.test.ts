import { describe, expect, it } from "vitest";
import { faultOf } from "../../../src/core/mine/triage.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { attempt } from "./bash-attempt.js";

const code = (a: Attempt) => faultOf(a)?.code;

describe("a tool the task relies on: missing or without credentials", () => {
  it("a missing program is read only in a shell's own wording", () => {
    const task = "Implement a key-value HTTP server on port 8080. Verify it with `curl`.";
    // the agent's own server answering "key abc: not found" is no missing `abc`
    const own = { cmd: "curl -s localhost:8080/get/abc", out: "key abc: not found" };
    expect(code(attempt(task, [own, { say: "The server is running." }]))).toBeUndefined();
    // a program's complaint about its own subcommand: the program ran
    const cli = "The `todo` CLI in /app is broken: fix its `list` subcommand.";
    const sub = { cmd: "todo lst", out: "Unknown command: lst", exit: 1 };
    expect(code(attempt(cli, [sub, { say: "Fixed." }]))).toBeUndefined();
    // near misses: each shell's own words for a program it could not find
    for (const out of [
      "bash: curl: command not found",
      "-bash: curl: command not found",
      "/bin/sh: 1: curl: not found",
      "sh: line 1: curl: command not found",
      "./check.sh: line 3: curl: command not found",
      "curl: command not found",
      "zsh: command not found: curl",
      "fish: Unknown command: curl",
      "'curl' is not recognized as an internal or external command,",
    ])
      expect(code(attempt(task, [{ cmd: "curl -s example.com", out, exit: 127 }])), out).toBe(
        "tool-unavailable",
      );
  });

  it("credentials are missing only for a service not the agent's own, asked without any", () => {
    // the agent's own endpoint refusing it
    const auth = "Add token authentication to the Flask API in /app. Test it with `curl`.";
    const local = {
      cmd: "curl -s localhost:5000/api/items",
      out: '{"code": 401, "message": "401 Unauthorized"}',
    };
    expect(code(attempt(auth, [local, { say: "Added the decorator." }]))).toBeUndefined();
    // a password the agent gave, refused
    const db =
      "Create the schema in the postgres database using `psql` (user app, password s3cret).";
    const wrong = {
      cmd: "psql -U app -h db.internal -c 'select 1'",
      out: 'psql: error: FATAL:  password authentication failed for user "app"',
      exit: 2,
    };
    expect(code(attempt(db, [wrong, { say: "Could not connect." }]))).toBeUndefined();
    // the agent's own test printing what it expects
    const login = "Implement password login in auth.py. Check it with `python test_auth.py`.";
    const test = {
      cmd: "python test_auth.py",
      out: "test_wrong_password: authentication failed (expected)\ntest_login: FAIL",
      exit: 1,
    };
    expect(code(attempt(login, [test, { say: "One test still fails." }]))).toBeUndefined();
    // near miss: the CLI the task provides is not logged in (the case the rule was written for)
    const gh = "You have access to the repository through the `gh` CLI tool.";
    const list = {
      cmd: "gh issue list --repo o/r --state open",
      out: "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable.",
      exit: 4,
    };
    expect(faultOf(attempt(gh, [list, { say: "I cannot reach GitHub." }]))?.detail).toContain(
      "`gh`, which the task relies on, has no credentials",
    );
    // and a remote API the task names, asked with no credentials of the agent's own
    const remote = {
      cmd: "curl -s https://api.example.com/v1/items",
      out: '{"code": 401, "message": "401 Unauthorized"}',
    };
    expect(code(attempt(auth, [remote, { say: "Blocked." }]))).toBe("tool-unavailable");
  });
});

describe("a program the agent writes or builds is the agent's, not the host's", () => {
  it("a tool the task asks to build, not on the PATH, is no missing tool", () => {
    const task =
      "Write a Python command-line tool called `wordcount` that prints the number of words in a file, installed so it runs from any directory.";
    const run = {
      cmd: "wordcount README.md",
      out: "bash: wordcount: command not found",
      exit: 127,
    };
    expect(code(attempt(task, [run, { say: "Done." }]))).toBeUndefined();
    // nor one the agent wrote itself, whatever the task's words
    const named = "Make `wordcount` print the number of words in a file.";
    const write = { cmd: "cat > wordcount.py <<'X'\nimport sys\nX", out: "" };
    expect(code(attempt(named, [write, run, { say: "Done." }]))).toBeUndefined();
    // near misses: a tool the task provides, named after a build verb with a "with" between,
    // and the same tool missing when the agent wrote no such program
    const gh = "Create a pull request with the tool `gh`.";
    const pr = { cmd: "gh pr create --fill", out: "bash: gh: command not found", exit: 127 };
    expect(code(attempt(gh, [pr, { say: "gh is missing." }]))).toBe("tool-unavailable");
    expect(code(attempt(named, [run, { say: "Done." }]))).toBe("tool-unavailable");
  });

  it("a binary the agent built that the host cannot run is the agent's build", () => {
    const task = "Compile main.c into an executable named main and run it.";
    const built = { cmd: "gcc -c main.c -o main", out: "" };
    const run = {
      cmd: "./main",
      out: "bash: ./main: cannot execute binary file: Exec format error",
      exit: 126,
    };
    expect(code(attempt(task, [built, run, { say: "Compiled." }]))).toBeUndefined();
    // near miss: the same program, not the agent's: the host's fault
    expect(code(attempt(task, [run, { say: "Compiled." }]))).toBe("host-cannot-run");
  });
});

describe("a model/API error notice in the agent's last turn", () => {
  const edit = { cmd: "vim app.js", out: "" };

  it("the agent's words about its own work are no provider notice", () => {
    // an error the task is about
    const limiter = "Implement a rate limiter middleware for the Express app.";
    const said = { say: "Rate limited clients now get 429 Too Many Requests." };
    expect(code(attempt(limiter, [edit, said]))).toBeUndefined();
    // "Error handling …" opens a summary, not an error notice
    const robust = "Make the HTTP client robust.";
    const summary = {
      say: "Error handling added: the client now retries with backoff when the server answers 503 Service Unavailable or a bad gateway, and gives up after 5 attempts. I have not run the tests.",
    };
    expect(code(attempt(robust, [edit, summary]))).toBeUndefined();
    // an error its own calls met
    const nginx = "Configure nginx as a reverse proxy for the app on port 3000.";
    const curl = { cmd: "curl -s localhost", out: "<h1>502 Bad Gateway</h1>" };
    const report = {
      say: "Error: nginx still returns 502 Bad Gateway; the upstream app does not seem to start. I could not fix it.",
    };
    expect(code(attempt(nginx, [curl, report]))).toBeUndefined();
    // near misses: the same words as a notice, in a run that never met them
    expect(code(attempt(nginx, [edit, report]))).toBe("model-api-error");
    expect(code(attempt(robust, [edit, { say: "API Error: 529 overloaded_error" }]))).toBe(
      "model-api-error",
    );
  });

  it("other providers' notices count, as notices only", () => {
    for (const say of [
      "Error: 429 RESOURCE_EXHAUSTED. Resource has been exhausted (e.g. check quota).",
      "Error: 503 UNAVAILABLE. The service is currently unavailable.",
      "Error: ThrottlingException: Too many tokens, please wait before trying again.",
      "Error: You exceeded your current quota, please check your plan and billing details.",
      "Error: Request timed out.",
      "Error: Connection error.",
    ])
      expect(code(attempt("Fix the bug.", [edit, { say }])), say).toBe("model-api-error");
    // the plain words in the agent's own sentence are none
    const prose = "Added a retry: the request timed out once in my test, and now it does not.";
    expect(code(attempt("Fix the bug.", [edit, { say: prose }]))).toBeUndefined();
  });
});
