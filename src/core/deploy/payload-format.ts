import type { Candidate } from "../policy/schema.js";

/**
 * The files of a screen arm's hook payload (written by core/screening/run/payload.ts on the
 * host, read by the standalone hook runtime/payload-hook.ts in the container).
 */
export const PAYLOAD_FORMAT = "fire-hook-payload/1";
export const PAYLOAD_PORTFOLIO = "portfolio.json";
export const PAYLOAD_MANIFEST = "payload.json";
export const PAYLOAD_HOOK = "fire-hook.mjs";

export interface PayloadManifest {
  format: typeof PAYLOAD_FORMAT;
  screen: string;
  arm: string;
  harness: "claude" | "codex";
  /** sha256 of each payload file, by name. */
  files: Record<string, string>;
}

export interface PayloadPortfolio {
  format: typeof PAYLOAD_FORMAT;
  arm: string;
  policies: { file: string; candidate: Candidate }[];
}
