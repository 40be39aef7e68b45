import { Attempt } from "../../src/core/model/attempt.js";
import type { DetectorHit } from "../../src/llm/index.js";
import type { LlmLabelAnswer } from "../../src/llm/label.js";
import type { ChatBody, ChatReply } from "../helpers/fake-openai.js";

/** Secrets planted in traces; none may ever reach the server, the cache or a report. */
export const PLANTED = {
  openai: "sk-proj-Zx81kd0QmP2vLr7Tn4Wy9cBf",
  github: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  aws: "AKIAIOSFODNN7EXAMPLE",
  password: "hunter2-Sup3rSecret",
  urlPass: "s3cr3tPass",
};

/** A failed attempt shaped like an imported Harbor trial: build, a passing check, then a destructive stop. */
export function makeAttempt(id: string, extraEvents = 0): Attempt {
  const events: unknown[] = [
    {
      index: 0,
      kind: "prompt",
      role: "user",
      input: `Deploy the app on port 8080. Use token ${PLANTED.github}.`,
    },
    {
      index: 1,
      kind: "tool_call",
      tool: "Bash",
      command: `export OPENAI_API_KEY=${PLANTED.openai}`,
      callId: "c1",
    },
    { index: 2, kind: "tool_result", callId: "c1", output: "", exitCode: 0 },
    {
      index: 3,
      kind: "tool_call",
      tool: "Bash",
      command: "npm run build && node server.js &",
      callId: "c2",
    },
    { index: 4, kind: "tool_result", callId: "c2", output: "listening on 8080", exitCode: 0 },
    {
      index: 5,
      kind: "tool_call",
      tool: "Bash",
      command: "curl -s localhost:8080/health",
      callId: "c3",
    },
    { index: 6, kind: "tool_result", callId: "c3", output: '{"ok":true}', exitCode: 0 },
  ];
  for (let k = 0; k < extraEvents; k++) {
    const i = events.length;
    events.push({
      index: i,
      kind: "tool_call",
      tool: "Bash",
      command: `ls -la /app/dir${k} # ${"x".repeat(200)}`,
      callId: `e${k}`,
    });
    events.push({
      index: i + 1,
      kind: "tool_result",
      callId: `e${k}`,
      output: "file\n".repeat(120),
      exitCode: 0,
    });
  }
  const n = events.length;
  events.push(
    {
      index: n,
      kind: "tool_call",
      tool: "Bash",
      command: `git clone https://deploy:${PLANTED.urlPass}@git.example.com/app.git && rm -rf /app/dist`,
      callId: "c9",
    },
    {
      index: n + 1,
      kind: "tool_result",
      callId: "c9",
      output: `AWS_ACCESS_KEY_ID=${PLANTED.aws}\nDB_PASSWORD=${PLANTED.password}`,
      exitCode: 0,
    },
    { index: n + 2, kind: "message", role: "agent", input: "Done, the app is deployed." },
    { index: n + 3, kind: "stop" },
  );
  return Attempt.parse({
    id,
    source: { format: "harbor-trial", path: `/trials/${id}` },
    taskId: "deploy-app",
    taskText: `Deploy the app so GET /health answers on port 8080. Credentials: password=${PLANTED.password}`,
    outcome: "fail",
    reward: 0,
    // as pytest prints it: the short summary section, then the count line
    verifierOutput: [
      "=========================== short test summary info ============================",
      "FAILED test_health - ConnectionRefusedError: [Errno 111]",
      "============================== 1 failed in 0.31s ===============================",
    ].join("\n"),
    events,
  });
}

/** hitsFor's hits, and the stop detector reading the stop as unchecked (its last event). */
export function stopHitsFor(a: Attempt): DetectorHit[] {
  const last = a.events.at(-1)?.index ?? 0;
  return [
    ...hitsFor(a),
    {
      detectorId: "stop.no-check-after-write",
      family: "stop-without-check",
      eventIndices: [last],
      reason: "no check of any kind after the last write",
    },
  ];
}

export function hitsFor(a: Attempt): DetectorHit[] {
  const last = a.events.length - 1;
  return [
    { detectorId: "earlier-success", eventIndices: [6], reason: "health probe returned 2xx" },
    {
      detectorId: "destructive-after-probe",
      family: "deployment-preservation",
      eventIndices: [last - 3],
      reason: "rm -rf after a good probe",
    },
  ];
}

/**
 * A valid answer for makeAttempt's attempts: every claim quotes what its event holds (the
 * labeller names a mechanism only when the quote is found there).
 */
export function goodAnswer(overrides: Partial<LlmLabelAnswer> = {}): LlmLabelAnswer {
  return {
    mechanismId: "deployment-preservation",
    kind: "procedural_loss",
    status: "named",
    evidence: [
      {
        claim: "capability",
        from: "event",
        eventIndex: 6,
        attemptId: null,
        excerpt: '{"ok":true}',
      },
      {
        claim: "state",
        from: "event",
        eventIndex: 6,
        attemptId: null,
        excerpt: '{"ok":true}',
      },
    ],
    capabilityEvidence: [{ eventIndex: 6, why: "health check answered ok" }],
    preFailureState: { eventIndex: 6, description: "service up and probed" },
    mechanism: "destructive cleanup after a successful deployment probe",
    interventionPoint: "tool",
    exclusion: "none",
    confidence: 0.8,
    rationale: "The agent had a working deployment and then removed it.",
    secondReading: null,
    ...overrides,
  };
}

/**
 * A fake-server reply to a labelling request: a good answer citing the first event the
 * prompt shows (`[N] …`), so the answer is valid for whichever attempt was sent.
 */
export function answerCitingFirstShown(body: ChatBody): ChatReply {
  const { eventIndex, excerpt } = firstShown(body);
  return {
    kind: "json",
    answer: goodAnswer({
      capabilityEvidence: [{ eventIndex, why: "shown" }],
      preFailureState: { eventIndex, description: "before stop" },
      evidence: [{ claim: "mechanism", from: "event", eventIndex, attemptId: null, excerpt }],
    }),
  };
}

/** The first event a labelling prompt shows: its [index] and a quote of its line. */
export function firstShown(body: ChatBody): { eventIndex: number; excerpt: string } {
  const user = body.messages.find((m: { role: string }) => m.role === "user").content as string;
  // the first shown event after the task (a quote of the task shows no mechanism)
  const line = user.match(/^\[(\d+)\] (?!prompt\b)(.*)$/m) ?? user.match(/^\[(\d+)\] (.*)$/m);
  // a quote of the shown line itself (before any cut), so the evidence is found in the event
  const excerpt = (line?.[2] ?? "").split(/…| ⏎ /)[0]?.slice(0, 60) ?? "";
  return { eventIndex: Number(line?.[1] ?? 0), excerpt };
}
