#!/usr/bin/env node
import { Command, InvalidArgumentError } from "commander";
import { writeCorpus } from "./corpus.js";
import { writeDemo } from "./demo.js";
import { TRACE_FORMATS, type TraceFormat } from "./layout.js";

function int(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v))
      throw new InvalidArgumentError(`${name} must be a non-negative integer, got '${v}'`);
    return Number(v);
  };
}

function formats(v: string): TraceFormat[] {
  const list = v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const f of list) {
    if (!(TRACE_FORMATS as readonly string[]).includes(f)) {
      throw new InvalidArgumentError(
        `unknown format '${f}' (expected ${TRACE_FORMATS.join(", ")})`,
      );
    }
  }
  if (list.length === 0) throw new InvalidArgumentError("at least one format is required");
  return list as TraceFormat[];
}

const program = new Command("fire-gen")
  .description(
    "Write a seeded, synthetic trace corpus (the demo workspace, or a large benchmark corpus).",
  )
  .requiredOption("--out <dir>", "output directory")
  .requiredOption("--seed <n>", "seed (same seed, same bytes)", int("--seed"))
  .option("--tasks <n>", "number of tasks (demo mode)", int("--tasks"))
  .option("--attempts <n>", "attempts per task", int("--attempts"))
  .option("--formats <list>", "comma-separated: harbor,claude,codex", formats)
  .option(
    "--target-bytes <n>",
    "write a large mixed corpus of at least this size",
    int("--target-bytes"),
  )
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

try {
  program.parse();
} catch (e) {
  const code = (e as { exitCode?: number }).exitCode ?? 2;
  process.exit(code === 0 ? 0 : 2);
}
const o = program.opts<{
  out: string;
  seed: number;
  tasks?: number;
  attempts?: number;
  formats?: TraceFormat[];
  targetBytes?: number;
}>();

if (o.targetBytes !== undefined) {
  const r = await writeCorpus({
    outDir: o.out,
    seed: o.seed,
    targetBytes: o.targetBytes,
    formats: o.formats ?? [...TRACE_FORMATS],
    ...(o.attempts !== undefined ? { attemptsPerTask: o.attempts } : {}),
  });
  process.stdout.write(
    `wrote ${r.attempts} attempts in ${r.files} files (${r.bytes} bytes) to ${o.out}\n`,
  );
} else {
  const { manifest, stats } = await writeDemo({
    outDir: o.out,
    seed: o.seed,
    ...(o.tasks !== undefined ? { tasks: o.tasks } : {}),
    ...(o.attempts !== undefined ? { attempts: o.attempts } : {}),
    ...(o.formats !== undefined ? { formats: o.formats } : {}),
  });
  const n = manifest.tasks.reduce((s, t) => s + t.attempts, 0);
  process.stdout.write(
    `wrote ${manifest.tasks.length} tasks, ${n} attempts, ${stats.files} files (${stats.bytes} bytes) to ${o.out}\n`,
  );
}
