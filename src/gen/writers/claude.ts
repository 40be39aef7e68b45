import { iso, sessionCwd } from "../agents.js";
import type { TraceInput } from "../types.js";

/**
 * A Claude Code transcript (`~/.claude/projects/<cwd>/<session>.jsonl`) for a script, as
 * lines, in the row shapes Claude Code 2.1 writes: one row per content block, `tool_use`
 * answered by a `user` row holding the `tool_result`, plus bookkeeping rows
 * (queue-operation, attachment, last-prompt) that importers must skip.
 */
export function* claudeLines(w: TraceInput): Generator<string> {
  const { script, instruction, agent, sessionId, startMs, rng } = w;
  let t = startMs;
  const cwd = sessionCwd(sessionId);
  const base = {
    userType: "external",
    entrypoint: "cli",
    cwd,
    sessionId,
    version: agent.version,
    gitBranch: "main",
  };
  const row = (o: Record<string, unknown>) => JSON.stringify({ ...o, ...base });
  const promptId = rng.uuid();
  yield JSON.stringify({
    type: "queue-operation",
    operation: "enqueue",
    timestamp: iso(t),
    sessionId,
    content: instruction,
  });
  let parent: string | null = null;
  const userUuid = rng.uuid();
  yield row({
    parentUuid: null,
    isSidechain: false,
    promptId,
    type: "user",
    message: { role: "user", content: instruction },
    uuid: userUuid,
    timestamp: iso(t),
    permissionMode: "bypassPermissions",
  });
  parent = userUuid;
  const attUuid = rng.uuid();
  yield row({
    parentUuid: parent,
    isSidechain: false,
    attachment: { type: "date", date: iso(t).slice(0, 10) },
    type: "attachment",
    uuid: attUuid,
    timestamp: iso(t),
  });
  parent = attUuid;
  let n = 0;
  const usage = () => ({
    input_tokens: rng.int(4, 40),
    cache_creation_input_tokens: rng.int(0, 900),
    cache_read_input_tokens: rng.int(8000, 40000),
    output_tokens: rng.int(40, 400),
    service_tier: "standard",
  });
  const assistant = (content: unknown[], stop: string, msgId: string, reqId: string) => {
    const uuid = rng.uuid();
    const line = row({
      parentUuid: parent,
      isSidechain: false,
      message: {
        id: msgId,
        type: "message",
        role: "assistant",
        model: agent.model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: usage(),
      },
      requestId: reqId,
      type: "assistant",
      uuid,
      timestamp: iso(t),
    });
    parent = uuid;
    return { line, uuid };
  };
  for (const s of script.steps) {
    n += 1;
    t += rng.int(1500, 9000);
    const msgId = `msg_01${rng.alnum(22)}`;
    const reqId = `req_011${rng.alnum(21)}`;
    yield assistant([{ type: "text", text: s.say }], "tool_use", msgId, reqId).line;
    const toolId = `toolu_01${rng.alnum(22)}`;
    const input = { command: s.cmd, description: "Run shell command" };
    const call = assistant(
      [{ type: "tool_use", id: toolId, name: "Bash", input }],
      "tool_use",
      msgId,
      reqId,
    );
    yield call.line;
    t += Math.round(s.secs * 1000);
    const isError = s.exit !== 0;
    const content = isError ? `Exit code ${s.exit}\n${s.out}` : s.out;
    const uuid = rng.uuid();
    yield row({
      parentUuid: parent,
      isSidechain: false,
      promptId,
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: toolId, type: "tool_result", content, is_error: isError }],
      },
      uuid,
      timestamp: iso(t),
      toolUseResult: {
        stdout: isError ? "" : s.out,
        stderr: isError ? s.out : "",
        interrupted: false,
        isImage: false,
      },
      sourceToolAssistantUUID: call.uuid,
    });
    parent = uuid;
    if (n % 5 === 0) {
      yield JSON.stringify({
        type: "last-prompt",
        lastPrompt: instruction.slice(0, 200),
        leafUuid: uuid,
        sessionId,
      });
    }
  }
  if (script.final !== null) {
    t += rng.int(1500, 6000);
    const msgId = `msg_01${rng.alnum(22)}`;
    yield assistant(
      [{ type: "text", text: script.final }],
      "end_turn",
      msgId,
      `req_011${rng.alnum(21)}`,
    ).line;
  }
}
