import { type AgentProfile, costUsd, iso } from "../agents.js";
import type { Rng } from "../prng.js";
import type { TraceInput } from "../types.js";

export interface AtifResult {
  trajectory: Record<string, unknown>;
  /** ATIF step_id of each script step (same order as `script.steps`). */
  stepIds: number[];
  tokens: { input: number; output: number; cached: number };
  cost: number;
  endMs: number;
}

const TERMINUS_PREAMBLE =
  "You are an AI assistant tasked with solving command-line tasks in a Linux environment. " +
  "You will be given a task description and the output from previously executed commands. " +
  "Your goal is to solve the task by providing batches of shell commands.\n\n" +
  'Format your response as JSON with the fields "analysis", "plan", "commands" ' +
  '(objects with "keystrokes" and "duration") and optional "task_complete".\n\nTask Description:\n';

/** The first user message as each harness phrases it. */
export function promptText(agent: AgentProfile, instruction: string): string {
  if (agent.style !== "terminus") return instruction;
  return `${TERMINUS_PREAMBLE}${instruction}\n\nCurrent terminal state:\nCurrent Terminal Screen:\nroot@${"c0ffee"}:/app# \n`;
}

function toolCall(agent: AgentProfile, n: number, cmd: string, secs: number, rng: Rng) {
  if (agent.style === "terminus") {
    return {
      tool_call_id: `call_${n}_1`,
      function_name: "bash_command",
      arguments: { keystrokes: `${cmd}\n`, duration: Math.min(60, Math.max(0.1, secs)) },
    };
  }
  if (agent.style === "claude") {
    return {
      tool_call_id: `toolu_01${rng.alnum(22)}`,
      function_name: "Bash",
      arguments: { command: cmd, description: "Run shell command" },
    };
  }
  return {
    tool_call_id: `call_${rng.alnum(24)}`,
    function_name: "exec_command",
    arguments: { cmd, workdir: "/app" },
  };
}

function observation(agent: AgentProfile, host: string, cmd: string, out: string, exit: number) {
  if (agent.style === "terminus") {
    const body = out ? `${out}\n` : "";
    return `New Terminal Output:\n\nroot@${host}:/app# ${cmd}\n${body}root@${host}:/app# `;
  }
  if (agent.style === "claude") return exit === 0 ? out : `Exit code ${exit}\n${out}`;
  return `Process exited with code ${exit}\nOutput:\n${out}`;
}

/** Render a script as an ATIF-v1.7 trajectory in the given agent's idiom. */
export function toAtif(w: TraceInput): AtifResult {
  const { script, instruction, agent, sessionId, startMs, rng } = w;
  const host = rng.hex(12);
  let t = startMs;
  let ctx = rng.int(1800, 4200);
  const tokens = { input: 0, output: 0, cached: 0 };
  let cost = 0;
  const steps: Record<string, unknown>[] = [
    { step_id: 1, timestamp: iso(t), source: "user", message: promptText(agent, instruction) },
  ];
  const stepIds: number[] = [];
  const metrics = (extraOut: number) => {
    const completion = rng.int(60, 420) + extraOut;
    const cached = Math.floor((ctx * rng.int(55, 90)) / 100);
    const prompt = ctx - cached;
    tokens.input += prompt;
    tokens.output += completion;
    tokens.cached += cached;
    const c = costUsd(agent, prompt, completion, cached);
    cost += c;
    ctx += completion + rng.int(40, 200);
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      cached_tokens: cached,
      cost_usd: c,
    };
  };
  script.steps.forEach((s, i) => {
    t += rng.int(1500, 9000);
    const call = toolCall(agent, i, s.cmd, s.secs, rng);
    const content = observation(agent, host, s.cmd, s.out, s.exit);
    const id = steps.length + 1;
    stepIds.push(id);
    const step: Record<string, unknown> = {
      step_id: id,
      timestamp: iso(t),
      source: "agent",
      model_name: agent.model,
      message:
        agent.style === "terminus"
          ? `Analysis: ${s.say}\nPlan: run \`${s.cmd.split("\n")[0]}\`.`
          : s.say,
      tool_calls: [call],
      observation: { results: [{ source_call_id: call.tool_call_id, content }] },
      metrics: metrics(0),
    };
    steps.push(step);
    ctx += Math.ceil(content.length / 4);
    t += Math.round(s.secs * 1000);
  });
  // the closing agent step: the final answer, or an empty one (no answer, no tokens)
  const final = script.final;
  t += final !== null ? rng.int(1500, 6000) : rng.int(300, 1500);
  steps.push({
    step_id: steps.length + 1,
    timestamp: iso(t),
    source: "agent",
    model_name: agent.model,
    message: final ?? "",
    metrics:
      final !== null
        ? metrics(0)
        : { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cost_usd: 0 },
  });
  cost = Math.round(cost * 1e6) / 1e6;
  const trajectory = {
    schema_version: "ATIF-v1.7",
    session_id: sessionId,
    agent: { name: agent.name, version: agent.version, model_name: agent.modelName },
    steps,
    final_metrics: {
      total_prompt_tokens: tokens.input,
      total_completion_tokens: tokens.output,
      total_cached_tokens: tokens.cached,
      total_cost_usd: cost,
      total_steps: steps.length,
    },
  };
  return { trajectory, stepIds, tokens, cost, endMs: t };
}
