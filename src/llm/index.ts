export type { DetectorHit } from "../core/mine/detectors/types.js";
export { createSession, type LlmSession, LlmUnavailableError, type RetryEvent } from "./client.js";
export {
  costOf,
  type LlmBudget,
  LlmConfig,
  type LlmConfigInput,
  type LlmPricing,
  pricingFor,
} from "./config.js";
export {
  LABEL_SCHEMA_VERSION,
  type LabelOptions,
  type LabelProgress,
  labelAttempts,
  labelSpec,
} from "./label.js";
export { type BuiltPrompt, buildLabelPrompt, type ChatMessage, fullTraceText } from "./prompt.js";
export type { RunReport } from "./report.js";
export { type StructuredResult, type StructuredSpec, structuredCall } from "./structured.js";
export {
  type SuggestOptions,
  type SuggestOutcome,
  suggestClusterChanges,
  suggestSpec,
} from "./suggest.js";
export { estimateTokens, TOKEN_ESTIMATOR } from "./tokens.js";
export { llmCacheDir, type WorkspaceLabelerOptions, workspaceLabeler } from "./workspace.js";
