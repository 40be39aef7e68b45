#!/usr/bin/env node
/**
 * A stand-in for `harbor run` used by the screen runner tests. It writes REAL Harbor
 * job/trial layouts (job result.json + config.json; per trial result.json, config.json,
 * agent/trajectory.json in ATIF-v1.7, verifier/reward.txt) and drives the REAL `fire hook`
 * with Claude Code-shaped hook stdin (UserPromptSubmit, PreToolUse, PostToolUse, Stop),
 * so the hook log in each trial's agent/ folder holds the live decisions.
 *
 * The scripted "agent": lists files; on a task that asks for a report it writes report.md;
 * then it stops. If a Stop is blocked with a reason that mentions the report, it reads the
 * report back (`cat report.md`) and stops again. The verifier passes a report task only when
 * the report was read back (plus one deterministic "lucky" pass: replicate 2 of report-logs);
 * other tasks always pass.
 *
 * Usage: harbor-standin.mjs --version
 *        harbor-standin.mjs run -p DATASET -o JOBS_DIR --job-name NAME [--task-name T]... [--ae K=V]...
 * STANDIN_FAIL_JOBS=`job/task,…` makes those trials provider failures (RateLimitError before
 * the agent ran: no trajectory steps beyond the prompt, no reward).
 * FIRE_HOOK_COMMAND (from the runner) is run per hook event with `/logs/agent/` mapped to the
 * trial's agent/ folder, as Harbor mounts it. FIRE_REPLICATE selects the lucky pass.
 */
import { execSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const argv = process.argv.slice(2);
if (argv[0] === "--version") {
  process.stdout.write("harbor 0.0.0-standin\n");
  process.exit(0);
}
if (argv[0] !== "run") {
  process.stderr.write("usage: harbor-standin.mjs run -p DATASET -o JOBS --job-name NAME\n");
  process.exit(2);
}
const opts = { tasks: [], ae: [] };
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  const v = () => argv[++i];
  if (a === "-p" || a === "--path") opts.dataset = v();
  else if (a === "-o" || a === "--jobs-dir") opts.jobsDir = v();
  else if (a === "--job-name") opts.jobName = v();
  else if (a === "--task-name") opts.tasks.push(v());
  else if (a === "--ae") opts.ae.push(v());
  else if (a === "-a" || a === "-m" || a === "-k" || a === "--n-concurrent" || a === "--env") v();
}
const jobDir = resolve(opts.jobsDir, opts.jobName);
mkdirSync(jobDir, { recursive: true });
const startedAt = new Date().toISOString();
const replicate = Number(process.env.FIRE_REPLICATE ?? "1");
const hookCommand = process.env.FIRE_HOOK_COMMAND ?? "";

function hook(trialDir, input) {
  if (!hookCommand) return null;
  const cmd = hookCommand.split("/logs/agent/").join(`${join(trialDir, "agent")}/`);
  const out = execSync(cmd, {
    input: JSON.stringify(input),
    env: { ...process.env, FIRE_STATE_DIR: join(trialDir, "agent", ".fire-state") },
    encoding: "utf8",
  }).trim();
  return out ? JSON.parse(out) : null;
}

const providerFails = new Set((process.env.STANDIN_FAIL_JOBS ?? "").split(",").filter(Boolean));

for (const name of opts.tasks) {
  const instruction = readFileSync(join(opts.dataset, name, "instruction.md"), "utf8").trim();
  const trialName = `${name}__${opts.jobName}`;
  const trialDir = join(jobDir, trialName);
  mkdirSync(join(trialDir, "agent"), { recursive: true });
  mkdirSync(join(trialDir, "verifier"), { recursive: true });
  const session = `standin-${opts.jobName}-${name}`;
  const base = { session_id: session, cwd: "/app", permission_mode: "bypassPermissions" };
  const steps = [{ step_id: 1, timestamp: startedAt, source: "user", message: instruction }];
  let callNo = 0;
  const run = (command, output) => {
    callNo++;
    const id = `toolu_standin_${callNo}`;
    const pre = hook(trialDir, {
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command },
      tool_use_id: id,
    });
    const denied = pre?.hookSpecificOutput?.permissionDecision === "deny";
    const content = denied ? pre.hookSpecificOutput.permissionDecisionReason : output;
    if (!denied) {
      hook(trialDir, {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command },
        tool_response: { stdout: output, stderr: "" },
        tool_use_id: id,
      });
    }
    steps.push({
      step_id: steps.length + 1,
      timestamp: new Date().toISOString(),
      source: "agent",
      message: "",
      tool_calls: [{ tool_call_id: id, function_name: "Bash", arguments: { command } }],
      observation: { results: [{ source_call_id: id, content }] },
    });
  };
  if (providerFails.has(`${opts.jobName}/${name}`)) {
    writeProviderFailure(trialDir, trialName, name, instruction, steps);
    continue;
  }
  hook(trialDir, { ...base, hook_event_name: "UserPromptSubmit", prompt: instruction });
  run("ls", "data\n");
  const reportTask = /report/i.test(instruction);
  if (reportTask) run("echo 'totals' > report.md", "");
  let readBack = false;
  const stop = hook(trialDir, {
    ...base,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "Done.",
  });
  if (stop?.decision === "block" && reportTask && /report/i.test(stop.reason ?? "")) {
    run("cat report.md", "totals\n");
    readBack = true;
    hook(trialDir, {
      ...base,
      hook_event_name: "Stop",
      stop_hook_active: true,
      last_assistant_message: "Checked.",
    });
  }
  steps.push({
    step_id: steps.length + 1,
    timestamp: new Date().toISOString(),
    source: "agent",
    message: "Done.",
  });
  const pass = !reportTask || readBack || (name === "report-logs" && replicate === 2);
  const reward = pass ? 1 : 0;
  const finishedAt = new Date().toISOString();
  writeFileSync(
    join(trialDir, "agent", "trajectory.json"),
    JSON.stringify(
      {
        schema_version: "ATIF-v1.7",
        session_id: session,
        agent: { name: "standin", version: "0.0.0", model_name: "standin/scripted" },
        steps,
        final_metrics: {
          total_prompt_tokens: 100,
          total_completion_tokens: 20,
          total_cost_usd: 0.01,
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(trialDir, "verifier", "reward.txt"), `${reward}\n`);
  writeFileSync(join(trialDir, "verifier", "test-stdout.txt"), pass ? "1 passed\n" : "1 failed\n");
  const config = {
    task: { path: join(opts.dataset, name), source: "standin" },
    trial_name: trialName,
    trials_dir: jobDir,
    agent: { name: "standin", model_name: "standin/scripted" },
  };
  writeFileSync(join(trialDir, "config.json"), JSON.stringify(config, null, 2));
  writeFileSync(
    join(trialDir, "result.json"),
    JSON.stringify(
      {
        id: `${opts.jobName}-${name}`,
        task_name: `standin/${name}`,
        trial_name: trialName,
        trial_uri: `file://${trialDir}`,
        task_id: { path: join(opts.dataset, name) },
        source: "standin",
        config,
        agent_info: {
          name: "standin",
          version: "0.0.0",
          model_info: { name: "scripted", provider: "standin" },
        },
        agent_result: {
          n_input_tokens: 100,
          n_cache_tokens: 0,
          n_output_tokens: 20,
          cost_usd: 0.01,
        },
        verifier_result: { rewards: { reward } },
        exception_info: null,
        started_at: startedAt,
        finished_at: finishedAt,
        agent_execution: { started_at: startedAt, finished_at: finishedAt },
      },
      null,
      2,
    ),
  );
}
writeFileSync(
  join(jobDir, "config.json"),
  JSON.stringify(
    { job_name: opts.jobName, jobs_dir: opts.jobsDir, n_attempts: 1, tasks: opts.tasks },
    null,
    2,
  ),
);
writeFileSync(
  join(jobDir, "result.json"),
  JSON.stringify(
    {
      id: opts.jobName,
      job_name: opts.jobName,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      n_total_trials: opts.tasks.length,
    },
    null,
    2,
  ),
);

function writeProviderFailure(trialDir, trialName, name, instruction, steps) {
  const at = new Date().toISOString();
  writeFileSync(
    join(trialDir, "agent", "trajectory.json"),
    JSON.stringify(
      {
        schema_version: "ATIF-v1.7",
        session_id: trialName,
        agent: { name: "standin", version: "0.0.0", model_name: "standin/scripted" },
        steps,
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(trialDir, "result.json"),
    JSON.stringify(
      {
        id: `${opts.jobName}-${name}`,
        task_name: `standin/${name}`,
        trial_name: trialName,
        source: "standin",
        agent_info: {
          name: "standin",
          version: "0.0.0",
          model_info: { name: "scripted", provider: "standin" },
        },
        agent_result: null,
        verifier_result: null,
        exception_info: {
          exception_type: "RateLimitError",
          exception_message: "429 from the provider before the first turn",
        },
        started_at: at,
        finished_at: at,
      },
      null,
      2,
    ),
  );
  void instruction;
}
