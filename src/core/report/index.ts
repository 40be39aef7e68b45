export * from "./forest.js";
export * from "./format.js";
export * from "./html.js";
export * from "./json.js";
export * from "./markdown.js";
export * from "./sections.js";
export * from "./svg.js";
export * from "./text.js";
