import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

/**
 * mini-SWE-agent under Harbor: the ATIF trajectory's first user message is the agent's
 * instance template with the task inside, and the agent's own trajectory beside it
 * (`agent/mini-swe-agent.trajectory.json`) records that template. The template here is the
 * head of mini-SWE-agent's own `mini.yaml` (MIT), with the sed examples its Harbor config adds.
 */
const TEMPLATE = [
  "Please solve this issue: {{task}}",
  "",
  "You can execute bash commands and edit files to implement the necessary changes.",
  "",
  "## Recommended Workflow",
  "",
  "1. Analyze the codebase by finding and reading relevant files",
  "6. Submit your changes and finish your work by issuing the following command: `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`.",
  "",
  "<system_information>",
  "{{system}} {{release}} {{version}} {{machine}}",
  "</system_information>",
  "",
  "### Edit files with sed:",
  "# Replace only first occurrence",
  "sed -i 's/old_string/new_string/' filename.py",
].join("\n");

const TASK =
  "Create /app/polyglot/main.py.c, a single file that runs as Python and compiles as C, printing the k-th Fibonacci number.";

describe("a Harbor trial of an agent that wraps the task in its own template", () => {
  let tmp: string;
  let dir: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "fire-harbor-template-"));
    dir = join(tmp, "polyglot-c-py__J3vZSQA");
    cpSync(join(REPO_ROOT, "test/fixtures/harbor-terminus2/polyglot-c-py__J3vZSQA"), dir, {
      recursive: true,
    });
    const file = join(dir, "agent", "trajectory.json");
    const traj = JSON.parse(readFileSync(file, "utf8"));
    const user = traj.steps.find((s: { source?: string }) => s.source === "user");
    user.message = TEMPLATE.replace("{{task}}", TASK).replace(
      "{{system}} {{release}} {{version}} {{machine}}",
      "Linux 6.17.0 #35 SMP x86_64",
    );
    writeFileSync(file, JSON.stringify(traj));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("without the agent's own trajectory, keeps the whole first message", async () => {
    const got = await collect([dir]);
    expect(got.errors).toEqual([]);
    expect(got.attempts[0]?.taskText).toContain("Recommended Workflow");
  });

  it("with it, cuts the task out of the template the agent recorded", async () => {
    writeFileSync(
      join(dir, "agent", "mini-swe-agent.trajectory.json"),
      JSON.stringify({
        info: { mini_version: "2.4.5", config: { agent: { instance_template: TEMPLATE } } },
        messages: [],
        trajectory_format: "mini-swe-agent-1.1",
      }),
    );
    const got = await collect([dir]);
    expect(got.errors).toEqual([]);
    expect(got.attempts[0]?.taskText).toBe(TASK);
  });
});
