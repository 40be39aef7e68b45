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
 *        harbor-standin.mjs run -p DATASET -o JOBS_DIR --job-name NAME [-i|--include-task-name T]...
 *                               [--ae K=V]... [--mounts JSON]
 * STANDIN_FAIL_JOBS=`job/task,…` makes those trials provider failures (RateLimitError before
 * the agent ran: no trajectory steps beyond the prompt, no reward).
 * The hook runs ONLY as delivered into the "container": `--mounts` (Harbor's JSON list of bind
 * volumes) is the container's file system; the stand-in reads the agent's settings file from
 * where Claude Code (`/etc/claude-code/managed-settings.json`) or Codex (its managed
 * requirements `/etc/codex/requirements.toml`, TOML `[hooks]`) would — only managed layers, as
 * the real clients run no untrusted user-layer hook (`$CODEX_HOME/hooks.json` without persisted
 * trust) under Harbor's agents — and runs each hook command it
 * lists for the event through `sh -c`, with container paths mapped to their mount sources and
 * `/logs/agent` to the trial's agent/ folder (as Harbor mounts it). The command runs in an
 * empty working directory with an environment free of FIRE_* variables and NODE_PATH, so the
 * hook cannot reach this repository's fire. No settings mount: no hook (baseline).
 * FIRE_REPLICATE selects the lucky pass.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";

let argv = process.argv.slice(2);
/**
 * `jobs resume -p JOB_DIR`: the job's own command again (its saved arguments, as Harbor
 * re-reads the job's config.json), keeping every trial that already has a result.json.
 * STANDIN_STOP_AFTER=N: the process dies (exit 1) after N trials of a job, as an
 * interrupted Harbor leaves a job folder behind; with STANDIN_STOP_JOB=NAME, only that job.
 */
let resuming = false;
if (argv[0] === "jobs" && argv[1] === "resume" && (argv[2] === "-p" || argv[2] === "--job-path")) {
  const saved = JSON.parse(readFileSync(join(argv[3], "standin-argv.json"), "utf8"));
  writeFileSync(join(argv[3], "standin-calls.jsonl"), `${JSON.stringify(argv)}\n`, { flag: "a" });
  argv = saved.argv;
  resuming = true;
}
if (argv[0] === "--version") {
  process.stdout.write("harbor 0.0.0-standin\n");
  process.exit(0);
}
if (argv[0] !== "run") {
  process.stderr.write("usage: harbor-standin.mjs run -p DATASET -o JOBS --job-name NAME\n");
  process.exit(2);
}
const opts = { tasks: [], ae: [], mounts: [], ak: [] };
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  const v = () => argv[++i];
  if (a === "-p" || a === "--path" || a === "-d" || a === "--dataset") opts.dataset = v();
  else if (a === "-o" || a === "--jobs-dir") opts.jobsDir = v();
  else if (a === "--job-name") opts.jobName = v();
  else if (a === "-i" || a === "--include-task-name" || a === "--task-name") opts.tasks.push(v());
  else if (a === "--mounts") opts.mounts = JSON.parse(v());
  else if (a === "--ae") opts.ae.push(v());
  else if (a === "--agent-import-path") opts.importPath = v();
  else if (a === "--ak" || a === "--agent-kwarg") opts.ak.push(v());
  else if (a === "--env" || a === "-e") opts.env = v();
  else if (a === "-y" || a === "--yes") opts.yes = true;
  else if (a === "-a" || a === "-m" || a === "-k" || a === "--n-concurrent") v();
  else {
    process.stderr.write(`harbor-standin: unknown option ${a}\n`);
    process.exit(2);
  }
}
// Harbor matches -i against each task's task_name (`standin/<folder>`, a package-style
// `org/name`), as a glob; a name that matches nothing is an error, as in Harbor.
const glob = (p) =>
  new RegExp(
    `^${p
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
const available = readdirSync(opts.dataset).filter((d) =>
  existsSync(join(opts.dataset, d, "instruction.md")),
);
const selected = available.filter((d) => opts.tasks.some((p) => glob(p).test(`standin/${d}`)));
if (selected.length === 0) {
  process.stderr.write(`No tasks matched the filter(s) ${opts.tasks.join(", ")}\n`);
  process.exit(1);
}
// Harbor asks before handing host environment variables (`\${VAR}` in a task's env) to a
// task; without -y it reads the answer from stdin (closed under fire: no answer = abort).
if (
  !opts.yes &&
  selected.some((d) => /\$\{/.test(readIfExists(join(opts.dataset, d, "task.toml"))))
) {
  process.stdout.write("Proceed? [y/N]: ");
  process.stderr.write("Aborted.\n");
  process.exit(1);
}
const jobDir = resolve(opts.jobsDir, opts.jobName);
mkdirSync(jobDir, { recursive: true });
// what this "Harbor" was given, for the tests: its arguments and the adapter's PYTHONPATH
if (!resuming) {
  writeFileSync(
    join(jobDir, "standin-argv.json"),
    JSON.stringify({ argv, pythonPath: process.env.PYTHONPATH ?? null }),
  );
  writeFileSync(join(jobDir, "standin-calls.jsonl"), `${JSON.stringify(argv)}\n`, { flag: "a" });
  // Harbor writes the job's config.json when the job starts (resume reads it)
  writeFileSync(
    join(jobDir, "config.json"),
    JSON.stringify({ job_name: opts.jobName, jobs_dir: opts.jobsDir, tasks: opts.tasks }),
  );
}
const stopJob = process.env.STANDIN_STOP_JOB;
const stopAfter =
  !stopJob || stopJob === opts.jobName ? Number(process.env.STANDIN_STOP_AFTER ?? "0") : 0;
/** STANDIN_TRIAL_DELAY_MS: each trial takes this long (to watch a job's live progress). */
const trialDelay = Number(process.env.STANDIN_TRIAL_DELAY_MS ?? "0");
let written = 0;
const startedAt = new Date().toISOString();
/** The agent block of every trial's result.json. */
const AGENT_INFO = {
  name: "standin",
  version: "0.0.0",
  model_info: { name: "scripted", provider: "standin" },
};
const replicate = Number(process.env.FIRE_REPLICATE ?? "1");
const SETTINGS_TARGETS = {
  "/etc/claude-code/managed-settings.json": (text) => JSON.parse(text),
  "/etc/codex/requirements.toml": (text) => parseToml(text),
};
const settingsMount = opts.mounts.find((m) => m.target in SETTINGS_TARGETS);
const settings = settingsMount
  ? SETTINGS_TARGETS[settingsMount.target](readFileSync(settingsMount.source, "utf8"))
  : null;
// The agent's environment: nothing of fire's, no module paths into this repository.
const agentEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith("FIRE_") && k !== "NODE_PATH"),
);
const emptyCwd = mkdtempSync(join(tmpdir(), "standin-agent-cwd-"));

/** A container path → the host path behind it (longest mount target first). */
function hostPath(text, trialDir) {
  const table = [
    ...opts.mounts.map((m) => [m.target, m.source]),
    ["/logs/agent", join(trialDir, "agent")],
  ];
  table.sort((a, b) => b[0].length - a[0].length);
  return text.replace(/(?<![\w/.-])\/[^\s'"]*/g, (p) => {
    for (const [target, source] of table) {
      if (p === target || p.startsWith(`${target}/`)) return source + p.slice(target.length);
    }
    return p;
  });
}

/**
 * The command as it would run in the container: paths mapped to their mount sources; a
 * script it runs with `sh <mounted script>` (the payload's launcher) is mapped the same way,
 * so the paths inside it resolve too.
 */
function containerCommand(command, trialDir) {
  const m = /^sh\s+(\/\S+)(.*)$/s.exec(command);
  const mapped = hostPath(command, trialDir);
  if (!m) return mapped;
  const script = hostPath(m[1], trialDir);
  const text = hostPath(readFileSync(script, "utf8"), trialDir);
  const copy = join(mkdtempSync(join(tmpdir(), "standin-script-")), "script.sh");
  writeFileSync(copy, text);
  return `sh ${copy}${hostPath(m[2], trialDir)}`;
}

/**
 * Adapter mode (`--agent-import-path module:Class`, as fire passes it off local Docker): no
 * mounts; the events are collected and, after the scripted agent finished, the adapter's
 * `setup` runs in the stand-in sandbox (harbor-sandbox/run_adapter.py, the module imported
 * from PYTHONPATH as Harbor does) and the events go to the hooks the uploaded managed settings
 * list, inside that sandbox; its /logs/agent is then downloaded into the trial's agent/ (as
 * Harbor does for non-mounted environments). The scripted agent does not see hook answers here.
 */
const pending = [];
/** Runs every hook the delivered settings list for this event; the last answer counts. */
function hook(trialDir, input) {
  if (opts.importPath) {
    pending.push(input);
    return null;
  }
  const groups = settings?.hooks?.[input.hook_event_name] ?? [];
  let answer = null;
  for (const group of groups) {
    if (group.matcher && input.tool_name && !new RegExp(group.matcher).test(input.tool_name))
      continue;
    for (const h of group.hooks ?? []) {
      if (h.type !== "command" || !h.command) continue;
      const command = containerCommand(h.command, trialDir);
      if (!existsSync(emptyCwd)) mkdirSync(emptyCwd);
      const out = execFileSync("sh", ["-c", command], {
        input: JSON.stringify(input),
        env: agentEnv,
        cwd: emptyCwd,
        encoding: "utf8",
      }).trim();
      if (out) answer = JSON.parse(out);
    }
  }
  return answer;
}

const providerFails = new Set((process.env.STANDIN_FAIL_JOBS ?? "").split(",").filter(Boolean));

function readIfExists(file) {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** STANDIN_MULTISTEP=1: one named step, whose agent/ and verifier/ Harbor moves to steps/. */
const multiStep = process.env.STANDIN_MULTISTEP === "1";
/** STANDIN_REWARD_KEY=k: the verifier reports its reward under that key instead of `reward`. */
const rewardKey = process.env.STANDIN_REWARD_KEY || "reward";

for (const name of selected) {
  const instruction = readFileSync(join(opts.dataset, name, "instruction.md"), "utf8").trim();
  const trialName = `${name}__${opts.jobName}`;
  const trialDir = join(jobDir, trialName);
  if (resuming && existsSync(join(trialDir, "result.json"))) continue;
  if (stopAfter && written >= stopAfter) {
    process.stderr.write("harbor-standin: interrupted\n");
    process.exit(1);
  }
  written++;
  writeJobResult(name, null);
  if (trialDelay) execFileSync("sleep", [String(trialDelay / 1000)]);
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
  // The trial began a minute before the agent: environment setup (the agent's own timing is
  // agent_execution); the verifier ran after it.
  const trialStart = new Date(Date.parse(startedAt) - 60_000).toISOString();
  const trialEnd = new Date(Date.parse(finishedAt) + 30_000).toISOString();
  const agentExecution = { started_at: startedAt, finished_at: finishedAt };
  writeTrajectory(trialDir, session, steps, {
    total_prompt_tokens: 100,
    total_completion_tokens: 20,
    total_cost_usd: 0.01,
  });
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
        agent_info: AGENT_INFO,
        agent_result: {
          n_input_tokens: 100,
          n_cache_tokens: 0,
          n_output_tokens: 20,
          cost_usd: 0.01,
        },
        verifier_result: multiStep ? null : { rewards: { [rewardKey]: reward } },
        exception_info: null,
        started_at: trialStart,
        finished_at: trialEnd,
        agent_execution: multiStep ? null : agentExecution,
        step_results: multiStep
          ? [
              {
                step_name: "main",
                verifier_result: { rewards: { [rewardKey]: reward } },
                agent_execution: agentExecution,
              },
            ]
          : null,
      },
      null,
      2,
    ),
  );
  if (opts.importPath) runAdapter(trialDir);
  if (multiStep) {
    mkdirSync(join(trialDir, "steps", "main"), { recursive: true });
    renameSync(join(trialDir, "agent"), join(trialDir, "steps", "main", "agent"));
    renameSync(join(trialDir, "verifier"), join(trialDir, "steps", "main", "verifier"));
  }
}
writeFileSync(
  join(jobDir, "config.json"),
  JSON.stringify(
    { job_name: opts.jobName, jobs_dir: opts.jobsDir, n_attempts: 1, tasks: opts.tasks },
    null,
    2,
  ),
);
writeJobResult(null, new Date().toISOString());

/**
 * The job's result.json as Harbor keeps it (`job.py`, `models/job/result.py`): rewritten on
 * every trial start and completion, `stats` summed from the trials' result.json files (so a
 * resumed job counts the trials it kept), `finished_at` only once the job ended.
 */
function writeJobResult(running, finishedAt) {
  const stats = {
    n_completed_trials: 0,
    n_errored_trials: 0,
    n_running_trials: running ? 1 : 0,
    n_pending_trials: 0,
    n_cancelled_trials: 0,
    n_retries: 0,
    evals: {},
    n_input_tokens: null,
    n_cache_tokens: null,
    n_output_tokens: null,
    cost_usd: null,
  };
  for (const name of selected) {
    const file = join(jobDir, `${name}__${opts.jobName}`, "result.json");
    if (!existsSync(file)) continue;
    const t = JSON.parse(readFileSync(file, "utf8"));
    stats.n_completed_trials++;
    if (t.exception_info) stats.n_errored_trials++;
    const a = t.agent_result;
    if (!a) continue;
    for (const k of ["n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd"])
      if (typeof a[k] === "number") stats[k] = (stats[k] ?? 0) + a[k];
  }
  stats.n_pending_trials = Math.max(
    selected.length - stats.n_completed_trials - stats.n_running_trials,
    0,
  );
  writeFileSync(
    join(jobDir, "result.json"),
    JSON.stringify(
      {
        id: "00000000-0000-4000-8000-000000000000",
        started_at: startedAt,
        updated_at: new Date().toISOString(),
        finished_at: finishedAt,
        n_total_trials: selected.length,
        stats,
      },
      null,
      4,
    ),
  );
}

/** A trial's ATIF trajectory (`agent/trajectory.json`); final metrics only when it finished. */
function writeTrajectory(trialDir, sessionId, steps, finalMetrics) {
  writeFileSync(
    join(trialDir, "agent", "trajectory.json"),
    JSON.stringify(
      {
        schema_version: "ATIF-v1.7",
        session_id: sessionId,
        agent: { name: "standin", version: "0.0.0", model_name: "standin/scripted" },
        steps,
        ...(finalMetrics ? { final_metrics: finalMetrics } : {}),
      },
      null,
      2,
    ),
  );
}

function writeProviderFailure(trialDir, trialName, name, instruction, steps) {
  const at = new Date().toISOString();
  writeTrajectory(trialDir, trialName, steps);
  writeFileSync(
    join(trialDir, "result.json"),
    JSON.stringify(
      {
        id: `${opts.jobName}-${name}`,
        task_name: `standin/${name}`,
        trial_name: trialName,
        source: "standin",
        agent_info: AGENT_INFO,
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

/** Harbor's agent setup + run for an import-path agent, in the stand-in sandbox (see hook()). */
function runAdapter(trialDir) {
  const [module, cls] = opts.importPath.split(":");
  // Harbor's parse_kwargs: JSON when it parses, else the string
  const kwargs = Object.fromEntries(
    opts.ak.map((kv) => {
      const i = kv.indexOf("=");
      const raw = kv.slice(i + 1);
      let value = raw;
      try {
        value = JSON.parse(raw);
      } catch {}
      return [kv.slice(0, i), value];
    }),
  );
  const dirs = (process.env.PYTHONPATH ?? "").split(":").filter(Boolean);
  const adapterDir = dirs.find((d) => existsSync(join(d, `${module}.py`)));
  if (!adapterDir) throw new Error(`Failed to import module '${module}' (PYTHONPATH ${dirs})`);
  const events = pending.splice(0);
  if (process.env.STANDIN_NO_SANDBOX === "1") return;
  const driver = new URL("./harbor-sandbox/run_adapter.py", import.meta.url).pathname;
  const out = execFileSync(
    "python3",
    [
      driver,
      JSON.stringify({
        module,
        cls,
        kwargs,
        adapterDir,
        logsDir: join(trialDir, "agent"),
        downloadTo: join(trialDir, "agent"),
        node: process.env.STANDIN_IMAGE_NODE ?? "image",
        events,
      }),
    ],
    { encoding: "utf8" },
  );
  const r = JSON.parse(out);
  if (r.stage !== "run") {
    const result = JSON.parse(readFileSync(join(trialDir, "result.json"), "utf8"));
    result.exception_info = { exception_type: "RuntimeError", exception_message: r.error };
    writeFileSync(join(trialDir, "result.json"), JSON.stringify(result, null, 2));
  }
}
