import { iso, sessionCwd } from "../agents.js";
import type { TraceInput } from "../types.js";

/**
 * A Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) for a script, as lines:
 * `session_meta`, `turn_context`, `response_item` (message, reasoning, function_call
 * `exec_command` with JSON-string arguments, function_call_output) and `event_msg` rows.
 */
export function* codexLines(w: TraceInput): Generator<string> {
  const { script, instruction, agent, sessionId, startMs, rng } = w;
  let t = startMs;
  const cwd = sessionCwd(sessionId);
  const turnId = rng.uuid();
  const line = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: iso(t), type, payload });
  yield line("session_meta", {
    id: sessionId,
    timestamp: iso(t),
    cwd,
    originator: "codex_cli_rs",
    cli_version: agent.version,
    source: "cli",
    model_provider: agent.provider,
  });
  yield line("event_msg", { type: "task_started", turn_id: turnId, model_context_window: 258400 });
  yield line("turn_context", {
    turn_id: turnId,
    cwd,
    approval_policy: "never",
    sandbox_policy: { type: "danger-full-access" },
    model: agent.model,
    effort: "medium",
    summary: "auto",
  });
  yield line("response_item", {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: instruction }],
  });
  yield line("event_msg", { type: "user_message", message: instruction, images: [] });
  const total = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (const s of script.steps) {
    t += rng.int(1500, 9000);
    if (rng.chance(0.4)) {
      yield line("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: `**Planning next step**\n\n${s.say}` }],
        content: null,
        encrypted_content: `gAAAAA${rng.alnum(120)}`,
      });
    }
    yield line("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: s.say }],
    });
    const callId = `call_${rng.alnum(24)}`;
    yield line("response_item", {
      type: "function_call",
      name: "exec_command",
      arguments: JSON.stringify({ cmd: s.cmd, workdir: cwd }),
      call_id: callId,
    });
    t += Math.round(s.secs * 1000);
    yield line("response_item", {
      type: "function_call_output",
      call_id: callId,
      output: `Chunk ID: ${rng.hex(6)}\nWall time: ${s.secs.toFixed(4)} seconds\nProcess exited with code ${s.exit}\nOriginal token count: ${Math.ceil(s.out.length / 4)}\nOutput:\n${s.out}\n`,
    });
    const last = {
      input_tokens: rng.int(2000, 30000),
      cached_input_tokens: 0,
      output_tokens: rng.int(40, 400),
    };
    last.cached_input_tokens = Math.floor(last.input_tokens * 0.8);
    total.input_tokens += last.input_tokens;
    total.cached_input_tokens += last.cached_input_tokens;
    total.output_tokens += last.output_tokens;
    total.total_tokens = total.input_tokens + total.output_tokens;
    yield line("event_msg", {
      type: "token_count",
      info: {
        total_token_usage: { ...total },
        last_token_usage: { ...last, total_tokens: last.input_tokens + last.output_tokens },
        model_context_window: 258400,
      },
    });
  }
  if (script.final !== null) {
    t += rng.int(1500, 6000);
    yield line("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: script.final }],
    });
    yield line("event_msg", {
      type: "task_complete",
      turn_id: turnId,
      last_agent_message: script.final,
    });
  }
}
