/** Agent/model profiles the generator varies over, with per-million-token prices. */
export type AgentStyle = "terminus" | "claude" | "codex";

export interface AgentProfile {
  style: AgentStyle;
  name: string;
  version: string;
  /** Harbor's `provider/model` spelling. */
  modelName: string;
  provider: string;
  model: string;
  priceIn: number;
  priceOut: number;
  priceCached: number;
}

export const AGENTS: readonly AgentProfile[] = [
  {
    style: "terminus",
    name: "terminus-2",
    version: "2.0.0",
    modelName: "anthropic/claude-sonnet-4-5",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    priceIn: 3,
    priceOut: 15,
    priceCached: 0.3,
  },
  {
    style: "terminus",
    name: "terminus-2",
    version: "2.0.0",
    modelName: "openai/gpt-5",
    provider: "openai",
    model: "gpt-5",
    priceIn: 1.25,
    priceOut: 10,
    priceCached: 0.125,
  },
  {
    style: "claude",
    name: "claude-code",
    version: "2.1.332",
    modelName: "anthropic/claude-opus-4-5",
    provider: "anthropic",
    model: "claude-opus-4-5",
    priceIn: 5,
    priceOut: 25,
    priceCached: 0.5,
  },
  {
    style: "codex",
    name: "codex",
    version: "0.171.0",
    modelName: "openai/gpt-5.1-codex",
    provider: "openai",
    model: "gpt-5.1-codex",
    priceIn: 1.25,
    priceOut: 10,
    priceCached: 0.125,
  },
];

export function costUsd(a: AgentProfile, input: number, output: number, cached: number): number {
  const c = (input * a.priceIn + output * a.priceOut + cached * a.priceCached) / 1e6;
  return Math.round(c * 1e6) / 1e6;
}

/** ISO timestamp with milliseconds, as Harbor and the harnesses write them. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The developer's working folder a local (Claude Code / Codex) session reports as its cwd. */
export function sessionCwd(sessionId: string): string {
  return `/home/dev/work/${sessionId.slice(0, 8)}`;
}
