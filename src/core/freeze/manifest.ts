import { isAbsolute } from "node:path";
import { z } from "zod";
import type { RouteAudit } from "../route/audit.js";

/** `portfolios/<name>/manifest.json`: what was frozen, why, and the hashes that pin it. */
export interface PortfolioManifest {
  kind: "fire-portfolio";
  version: 1;
  name: string;
  frozenAt: string;
  policies: ManifestPolicy[];
  /**
   * The policies as the hook evaluates them (core/policy/hook-form.ts): linear patterns and
   * prefilters, so a hook call admits no pattern. Absent in portfolios frozen before it.
   */
  hook?: { file: string; sha256: string };
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

/** A path inside the portfolio folder (relative, no `..`). */
const InsidePath = z.string().refine((p) => !isAbsolute(p) && !p.split(/[\\/]/).includes(".."), {
  message: "expected a path inside the portfolio folder",
});

/**
 * What loading a frozen portfolio relies on, checked before the hashes are: identity, the
 * policy files and their hashes. Routing, screens and analysis are records for people and
 * pass through (the manifest hash pins them).
 */
export const ManifestShape = z.looseObject({
  kind: z.literal("fire-portfolio"),
  version: z.literal(1),
  name: z.string(),
  frozenAt: z.string(),
  policies: z.array(
    z.looseObject({
      id: z.string(),
      version: z.number().int(),
      family: z.string(),
      file: InsidePath,
      sha256: z.string().regex(/^[0-9a-f]{64}$/, "expected a SHA-256 in hex"),
      source: z.string(),
    }),
  ),
  hook: z.object({ file: InsidePath, sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
  manifestHash: z.string(),
});
