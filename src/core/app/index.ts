/**
 * The use-case layer: one function per user action, over one WorkspaceSession. CLI commands
 * and workbench hooks call these, so a number shown in both is computed once.
 */
export * from "./lifecycle.js";
export * from "./screens.js";
export * from "./session.js";
