import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// This sandbox sets NODE_EXTRA_CA_CERTS (a CA bundle for its proxy to the npm registry); node
// reads it at every start, ~85 ms per process. Tests talk only to loopback, so the test workers
// and every CLI, hook or harness they spawn start without it (they inherit this environment).
delete process.env.NODE_EXTRA_CA_CERTS;
// Hooks remember verified frozen portfolios in the user's state folder (~/.local/state/fire):
// a test run keeps its records in a folder of its own instead.
process.env.FIRE_VERIFIED_DIR ??= mkdtempSync(join(tmpdir(), "fire-test-verified-"));
// Hook calls hand their events to a resident evaluator (src/runtime/resident.cts), which stays
// up after an idle spell: the ones a test run starts quit 30 s after their last call.
process.env.FIRE_HOOK_RESIDENT_IDLE_MS ??= "30000";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // Builds dist/ once when src/ is newer, so spawned CLI tests never run stale code.
    globalSetup: ["test/setup/build-once.ts"],
    // Ceilings for a hang, not speed targets: on a loaded 2-core machine one cold read of the
    // demo workspace has taken 25 s and the whole-loop UI test over 30 s.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Measured on this 2-core machine (test/core, 82 files): a fresh module graph per test file
    // cost 79 s CPU, one graph per worker 32 s, the same tests passing. No test mocks modules;
    // tests that set process.env restore it. vitest's default is one worker on 2 cores (cpus-1);
    // two keep both cores busy while a test waits on a spawned CLI or hook (test/runtime +
    // test/attacks: 152 s wall with one worker, 99 s with two, the same CPU).
    isolate: false,
    maxWorkers: 2,
  },
});
