/** One measured target of a benchmark: a ratio measured in one run against a limit. */
export interface BenchResult {
  /** What is measured, e.g. "ingest throughput ÷ JSON.parse throughput". */
  target: string;
  measured: number;
  limit: number;
  /** `min`: measured must be ≥ limit; `max`: measured must be ≤ limit. */
  kind: "min" | "max";
  /** Extra facts worth printing (sizes, times). */
  note?: string;
}

export interface Benchmark {
  name: string;
  description: string;
  run(log: (line: string) => void): Promise<BenchResult[]>;
}

export function passes(r: BenchResult): boolean {
  return r.kind === "min" ? r.measured >= r.limit : r.measured <= r.limit;
}
