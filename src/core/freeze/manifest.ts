import type { RouteAudit } from "../route/audit.js";

/** `portfolios/<name>/manifest.json`: what was frozen, why, and the hashes that pin it. */
export interface PortfolioManifest {
  kind: "fire-portfolio";
  version: 1;
  name: string;
  frozenAt: string;
  policies: ManifestPolicy[];
  /** Routing audit of the frozen policies over the workspace's task texts at freeze time. */
  routing: RouteAudit;
  /** Screens that justified each policy. */
  screens: ManifestScreen[];
  /** Policies frozen with --force: what was missing and the recorded reason. */
  forced: { policy: string; missing: string[]; reason: string }[];
  analysis: Record<string, unknown>;
  /** SHA-256 of the canonical JSON of this manifest without `manifestHash`. */
  manifestHash: string;
}

export interface ManifestPolicy {
  id: string;
  version: number;
  family: string;
  /** Portfolio-relative file holding the policy's canonical JSON. */
  file: string;
  /** SHA-256 of that file's bytes. */
  sha256: string;
  /** Workspace-relative candidate file it was frozen from. */
  source: string;
}

export interface ManifestScreen {
  policy: string;
  kind: "replay" | "run";
  name: string;
  verdict: string;
  evidence: string[];
}

export const MANIFEST_FILE = "manifest.json";
