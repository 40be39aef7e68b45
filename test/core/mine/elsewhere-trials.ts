import { resolve } from "node:path";
import { expect } from "vitest";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/**
 * The real OpenClaw trials of test/fixtures/harbor-openclaw-elsewhere (its README), by trial
 * folder name: agents that worked outside what the verifier graded.
 */
export async function elsewhereTrials(): Promise<Map<string, Attempt>> {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-openclaw-elsewhere")]);
  expect(got.errors).toEqual([]);
  return new Map(got.attempts.map((a) => [a.source.path.split("/").at(-1) ?? "", a]));
}
