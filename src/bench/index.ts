import { hookBenchmark } from "./hook.js";
import { ingestBenchmark } from "./ingest.js";
import type { Benchmark } from "./types.js";

/**
 * Every benchmark `npm run bench [-- name…]` knows. Add one import and one entry
 * per benchmark (hook, replay, mine, tui, …).
 */
export const benchmarks: Benchmark[] = [ingestBenchmark, hookBenchmark];
