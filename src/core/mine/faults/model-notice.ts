/**
 * A failed model request the agent's own last turn reports: the harness or the agent's
 * framework printing the provider's error in place of an answer, told from the agent's words
 * about a service it works on (its rate limiter's 429, its proxy's 502).
 */
import type { Attempt, Event } from "../../model/attempt.js";
import { escapeRe } from "../detectors/paths.js";
import { excerpt, type Fault } from "./types.js";

/**
 * An upstream model / API error, as agents and harnesses print it in the agent's own turn
 * (Anthropic, OpenAI, Google's gRPC status names, Bedrock's exception types).
 */
const MODEL_API_ERROR =
  /\b(?:(?:all |every )?API (?:attempts?|requests?|calls?) failed|service temporarily unavailable|api[ _]?(?:connection[ _]?|timeout[ _]?)?error|rate[ _-]?limit(?:ed|_error)?|overloaded(?:_error)?|internal server error|the server had an error (?:while )?processing your request|service unavailable|bad gateway|gateway time-?out|upstream (?:error|connect\w*|request timeout)|invalid[ _]api[ _]key|insufficient[ _]quota|(?:you )?exceeded your current quota|credit balance is too low|model (?:is )?not found|context[ _]length[ _]exceeded|LLM (?:idle )?time-?out|no response from (?:the )?model|(?:selected )?model is (?:currently )?(?:at|over) capacity|(?:hit|reached|exceeded) (?:your |the )?usage limit|resource_exhausted|deadline_exceeded|\w{0,40}(?:Throttling|RateLimit|Quota)\w{0,40}Exception|(?:40[13]|429|5\d\d)\s+(?:error|unauthorized|forbidden|too many requests|service unavailable|overloaded|bad gateway|gateway time-?out|unavailable|internal))\b/i;

/**
 * Words a provider's client prints for a failed request that are too plain to read anywhere
 * but in a turn that opens as an error notice ("Error: Request timed out.").
 */
const PLAIN_API_ERROR = /\b(?:request timed out|connection error)\b/i;

function agentText(e: Event): string | undefined {
  return e.kind === "message" && e.role !== "user" ? e.input : undefined;
}

/**
 * A turn that is itself an error notice (the harness or the agent's framework printing the
 * failed model request), not the agent's own words about a service: opening as an error (or an
 * error object), or short with the error near its start. A summary such as "the handler now returns 503 Service
 * Unavailable when rate limited", or "Error handling added: …", is none.
 */
const NOTICE_OPENING =
  /^\s*(?:[^\w\s]\s*){0,3}(?:API Error|Error(?:\s*[:[(]|\s+\d{3}\b|\s+code\b)|I encountered an error|Request failed|Upstream|\{\s*"(?:type|error)"|\[?error\]?:)/i;
function noticeMatch(a: Attempt, text: string): RegExpExecArray | null {
  const opening = NOTICE_OPENING.exec(text);
  const m = MODEL_API_ERROR.exec(text) ?? (opening ? PLAIN_API_ERROR.exec(text) : null);
  if (!m) return null;
  if (!opening && !(text.trim().length <= 160 && m.index <= 40)) return null;
  // the agent talking about its work: an error the task is about ("a rate limiter") or one its
  // own calls met (its app's "502 Bad Gateway"); a provider's error reaches no tool output
  return aboutItsWork(a, text.slice(opening?.[0].length ?? 0)) ? null : m;
}

/**
 * Whether any API-error phrase of `text` (a turn past its "API Error:" heading) also stands in
 * the task text or in a tool output, other than a model request's own failure a sub-agent's
 * tool returned ("API Error: 404 {…}").
 */
function aboutItsWork(a: Attempt, text: string): boolean {
  const found = [MODEL_API_ERROR, PLAIN_API_ERROR].flatMap((re) => [
    ...text.matchAll(new RegExp(re.source, `${re.flags}g`)),
  ]);
  if (found.length === 0) return false;
  const outputs = a.events.flatMap((e) =>
    (e.kind === "tool_result" || e.kind === "tool_call") &&
    e.output &&
    !SUBAGENT_NOTICE.test(e.output)
      ? [e.output]
      : [],
  );
  return found.some((m) => {
    const phrase = phraseRe(m[0]);
    return phrase.test(a.taskText) || outputs.some((o) => phrase.test(o));
  });
}

const SUBAGENT_NOTICE = /^\s*(?:API Error\b|\{\s*"type"\s*:\s*"error")/i;

/** A matched phrase as a pattern: its words in any case, spaces, `_` or `-` between, "-ed" off. */
function phraseRe(phrase: string): RegExp {
  const words = phrase
    .trim()
    .replace(/ed$/i, "")
    .split(/[\s_-]+/)
    .map(escapeRe);
  return new RegExp(`\\b${words.join("[\\s_-]+")}`, "i");
}

/** An upstream model / API error in the agent's own turns, after which it did nothing more. */
export function modelApiFault(a: Attempt, markers: readonly string[]): Fault | undefined {
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i]!;
    if (e.kind === "tool_call") return undefined;
    const text = agentText(e);
    if (!text) continue;
    const m = noticeMatch(a, text);
    const marker = markers.find((k) => text.toLowerCase().includes(k.toLowerCase()));
    if (m || marker)
      return {
        reason: "provider_fault",
        code: "model-api-error",
        detail: `upstream model/API error in the agent's turn: "${excerpt(m?.[0] ?? marker ?? "", 60)}"`,
        evidence: [{ eventIndex: e.index, excerpt: excerpt(text) }],
      };
  }
  return undefined;
}
