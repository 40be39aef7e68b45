import { basename, join, resolve } from "node:path";
import { PAYLOAD_HOOK_OPTIONS } from "../core/deploy/hook-options.js";
import {
  PAYLOAD_FORMAT,
  PAYLOAD_MANIFEST,
  PAYLOAD_PORTFOLIO,
  type PayloadManifest,
  type PayloadPortfolio,
} from "../core/deploy/payload-format.js";
import { compilePolicy } from "../core/policy/compile.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import { readRegularFile } from "../core/regular-file.js";
import { sha256Hex } from "../core/screening/canonical.js";
import { finishCli, parseHookArgs, readStdin, sendAnswer, str } from "./main.js";
import { runHook } from "./run-hook.js";

/**
 * The self-contained hook that a screen delivers into an agent's container (Harbor): one
 * bundled file (`fire-hook.mjs`, node built-ins only) next to the arm's compiled portfolio.
 *
 * `node fire-hook.mjs [--payload DIR] --sha256 HEX [--log FILE] [--state-dir DIR]
 * [--fail-closed]` answers one event exactly as `fire hook` does. The portfolio is
 * `DIR/portfolio.json` (candidates validated and safety-checked by fire on the host when
 * the payload was written); its sha256 must equal `--sha256` (pinned in the harness settings
 * next to the command) and the one in `DIR/payload.json`, or the hook answers nothing (a
 * logged fault; `--fail-closed` denies tool calls).
 */

/** Reads, hash-checks and compiles a payload's portfolio; throws with the reason. */
export function loadPayloadPortfolio(dir: string, expected: string | undefined): CompiledPolicy[] {
  if (!expected || !/^[0-9a-f]{64}$/.test(expected))
    throw new Error("payload hook: --sha256 of the portfolio is missing or not a sha256");
  let manifest: PayloadManifest;
  let text: Buffer;
  try {
    manifest = JSON.parse(readRegularFile(join(dir, PAYLOAD_MANIFEST), "utf8")) as PayloadManifest;
    text = readRegularFile(join(dir, PAYLOAD_PORTFOLIO));
  } catch (err) {
    throw new Error(`payload unreadable in ${dir}: ${(err as Error).message}`);
  }
  const actual = sha256Hex(text);
  if (actual !== expected || manifest.files?.[PAYLOAD_PORTFOLIO] !== expected)
    throw new Error(
      `payload portfolio ${join(dir, PAYLOAD_PORTFOLIO)} fails its hash check (sha256 ${actual}, expected ${expected})`,
    );
  const portfolio = JSON.parse(text.toString("utf8")) as PayloadPortfolio;
  if (portfolio.format !== PAYLOAD_FORMAT || !Array.isArray(portfolio.policies))
    throw new Error(`payload portfolio is not ${PAYLOAD_FORMAT}`);
  return portfolio.policies.map((p) => compilePolicy(p.candidate, p.file, { admitted: true }));
}

export async function runPayloadHookCli(args: string[], here: string): Promise<number> {
  const { values, usageError } = parseHookArgs(args, PAYLOAD_HOOK_OPTIONS);
  const dir = resolve(str(values.payload) ?? here);
  const env = process.env;
  const stdin = await readStdin();
  const answer = await runHook(stdin, {
    portfolio: join(dir, PAYLOAD_PORTFOLIO),
    loadPolicies: () => loadPayloadPortfolio(dir, str(values.sha256)),
    stateDir: resolve(str(values["state-dir"]) ?? join(dir, "..", `.fire-state-${basename(dir)}`)),
    logFile: resolve(str(values.log) ?? join(dir, "..", "fire-hook-log.jsonl")),
    failClosed: values["fail-closed"] === true,
    observe: values.observe === true,
    usageError,
    env,
  });
  return finishCli(stdin, sendAnswer(answer, usageError));
}
