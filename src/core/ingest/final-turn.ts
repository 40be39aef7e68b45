import type { AttemptInput } from "../model/attempt.js";

/** What a trace says of the agent's final model turn, as an importer gathers it. */
export interface FinalTurnSeen {
  /** Index of the turn's message event (else its reasoning). */
  eventIndex?: number;
  stopReason?: string;
  promptTokens?: number;
  outputTokens?: number;
  toolCalls: number;
}

/**
 * The attempt's `agentEnd` of a final turn: only the fields the trace recorded (an absent usage
 * field is no evidence of a cut-off), with how many other turns reported prompt tokens.
 */
export function agentEndOf(
  t: FinalTurnSeen,
  meteredTurns: number,
): Omit<NonNullable<AttemptInput["agentEnd"]>, "exitCode" | "exitFile"> {
  return {
    ...(t.eventIndex !== undefined ? { eventIndex: t.eventIndex } : {}),
    ...(t.stopReason ? { stopReason: t.stopReason } : {}),
    ...(t.promptTokens !== undefined ? { promptTokens: t.promptTokens } : {}),
    ...(t.outputTokens !== undefined ? { outputTokens: t.outputTokens } : {}),
    meteredTurns,
    toolCalls: t.toolCalls,
  };
}
