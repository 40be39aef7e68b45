/** The `verdicts` section of fire.config.json (same keys and defaults as the workspace config). */
export interface VerdictsConfig {
  inertMinFiringRate: number;
  overBroadMaxNegativeRate: number;
  harmfulMaxPassToFail: number;
}
