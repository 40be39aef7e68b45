import { join } from "node:path";
import { describe } from "vitest";
import { CASES, caseName, caseTests, RECORDED } from "./cases.js";

/**
 * Sessions of the REAL Claude Code 2.1.332 and Codex 0.171.0 (scripted model on loopback,
 * ../shared/realclients) with fire's built hook and the reference portfolio on every event,
 * kept under test/fixtures/real-clients/ (`node test/real-clients/record.mjs … --fixture`).
 * `npm run test:real-clients` runs the same cases live (live.rc.ts).
 */
describe.each(CASES.map((c) => [caseName(c), c] as const))("recorded real client %s", (name, c) => {
  caseTests(c, () => join(RECORDED, name));
});
