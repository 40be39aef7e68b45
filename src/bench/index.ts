import { attacksBenchmark } from "./attacks.js";
import { cliBenchmark } from "./cli.js";
import { hookBenchmark } from "./hook.js";
import { hookConcurrencyBenchmark } from "./hook-concurrency.js";
import { hookReportBenchmark } from "./hook-report.js";
import { ingestBenchmark } from "./ingest.js";
import { mineBenchmark } from "./mine.js";
import { mineAdversarialBenchmark } from "./mine-adversarial.js";
import { mineRealBenchmark } from "./mine-real.js";
import { refineBenchmark } from "./refine.js";
import { refineRealBenchmark } from "./refine-real.js";
import { replayBenchmark } from "./replay.js";
import { tuiBenchmark } from "./tui.js";
import type { Benchmark } from "./types.js";

/**
 * Every benchmark `npm run bench [-- name…]` knows. Add one import and one entry
 * per benchmark (hook, replay, mine, tui, …).
 */
export const benchmarks: Benchmark[] = [
  ingestBenchmark,
  hookBenchmark,
  hookConcurrencyBenchmark,
  hookReportBenchmark,
  replayBenchmark,
  mineBenchmark,
  mineRealBenchmark,
  mineAdversarialBenchmark,
  refineBenchmark,
  refineRealBenchmark,
  tuiBenchmark,
  cliBenchmark,
  attacksBenchmark,
];
