import {
  BUILD_RE,
  callSucceeded,
  commandOf,
  outputOf,
  PROBE_RE,
  probeOk,
  TEST_RE,
  toolCalls,
} from "./shell.js";
import type { Detector } from "./types.js";

const HTTP_OK = /\bHTTP\/[\d.]+\s+2\d\d\b|\b200 OK\b|^\s*2\d\d\s*$|status(?:_code)?[=: ]+2\d\d/m;
const TESTS_PASSED = /\b\d+ passed\b|\bOK\b|\bPASS(?:ED)?\b|\ball tests pass/i;

/** Capability evidence inside the trace: a test run, probe or build that succeeded. */
export const earlierSuccess: Detector = {
  id: "capability.earlier-success",
  description:
    "an earlier successful test run, probe (HTTP 2xx, open port) or build in the same trace",
  capability: true,
  detect(attempt) {
    const hits: { eventIndices: number[]; reason: string }[] = [];
    for (const call of toolCalls(attempt)) {
      const cmd = commandOf(call);
      if (!cmd || !callSucceeded(attempt, call)) continue;
      const out = outputOf(attempt, call);
      let what: string | undefined;
      if (TEST_RE.test(cmd) && TESTS_PASSED.test(out) && !/\b\d+ failed\b/.test(out))
        what = "test run succeeded";
      else if (PROBE_RE.test(cmd) && (HTTP_OK.test(out) || probeOk(attempt, call)))
        what = "probe succeeded";
      else if (BUILD_RE.test(cmd) && !/\berror\b/i.test(out)) what = "build succeeded";
      if (what) hits.push({ eventIndices: [call.index], reason: `${what}: ${cmd.slice(0, 80)}` });
    }
    return hits.slice(0, 5);
  },
};
