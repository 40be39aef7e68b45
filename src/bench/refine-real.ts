import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  acceptRefinement,
  draft,
  mine,
  openSession,
  refine,
  reloadCandidates,
  replayScreen,
  storedCandidates,
} from "../core/app/index.js";
import { defaultLocations, devSourceFiles, readDevSource } from "./dev-sources.js";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");

/** One corpus the acceptance figure is measured on: a name and its source folder. */
interface Corpus {
  name: string;
  source: string;
}

/** The demo corpus, the demo workspace's sources, and every labelled dev source on this machine. */
function corpora(): { found: Corpus[]; missing: string[] } {
  const found: Corpus[] = [
    { name: "demo", source: join(ROOT, "traces/generated/") },
    { name: "demo-workspace", source: join(ROOT, "traces/") },
  ];
  const missing: string[] = [];
  const loc = defaultLocations();
  const shared = join(loc.sharedFixtures, "attributions");
  for (const f of devSourceFiles(loc, ROOT).filter((f) => f.startsWith(shared))) {
    const src = readDevSource(f, loc);
    if (src.corpus && existsSync(src.corpus))
      found.push({ name: src.name, source: `${src.corpus}/` });
    else missing.push(`${src.name}: ${src.missing ?? "not on this machine"}`);
  }
  return { found, missing };
}

export interface RefineOutcome {
  corpus: string;
  candidate: string;
  before: string;
  /** The verdict of the accepted revision's own replay screen (`fire screen replay`). */
  after?: string;
  proposal?: string;
  lostPositive: boolean;
  why?: string;
}

/**
 * Acceptance of `fire candidate refine`: on every draft `fire draft` makes for every cluster
 * of a corpus, the over-broad or inert ones are refined once (the best proposal accepted as
 * a revision) and the revision re-screened with `fire screen replay`. Counts the share that
 * become promising with no positive lost.
 */
export async function refineCorpus(c: Corpus, log: (l: string) => void): Promise<RefineOutcome[]> {
  const dir = await mkdtemp(join(tmpdir(), "fire-bench-refine-"));
  const out: RefineOutcome[] = [];
  try {
    await writeFile(join(dir, "fire.config.json"), JSON.stringify({ sources: [c.source] }));
    let s = await openSession(dir);
    const mined = await mine(s, { labeler: "heuristic" });
    for (const cl of mined.clusters) await draft(s, cl);
    s = reloadCandidates(s);
    for (const cand of storedCandidates(s)) {
      const { screen } = await replayScreen(s, cand);
      const before = screen.verdict.verdict;
      if (before !== "inert" && before !== "over-broad") continue;
      const r = await refine(s, cand, { budgetMs: 60_000 });
      const best = r.proposals[0];
      if (!best) {
        out.push({
          corpus: c.name,
          candidate: cand.policy.key,
          before,
          lostPositive: false,
          why: r.noSeparation?.reasons.join("; ") ?? r.separation,
        });
        continue;
      }
      const { candidate } = await acceptRefinement(s, cand, best);
      s = reloadCandidates(s);
      const rev = storedCandidates(s).find(
        (x) => x.candidate.id === candidate.id && x.candidate.version === candidate.version,
      )!;
      const after = (await replayScreen(s, rev)).screen;
      const timelyBefore = new Set(
        screen.positives.filter((p) => p.timely).map((p) => p.attemptId),
      );
      const timelyAfter = new Set(after.positives.filter((p) => p.timely).map((p) => p.attemptId));
      out.push({
        corpus: c.name,
        candidate: cand.policy.key,
        before,
        after: after.verdict.verdict,
        proposal: best.summary.join("; "),
        lostPositive: [...timelyBefore].some((id) => !timelyAfter.has(id)),
        ...(after.verdict.verdict === "promising"
          ? {}
          : { why: r.noSeparation?.reasons.join("; ") ?? "best proposal is not promising" }),
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  for (const o of out)
    log(
      `${o.corpus.padEnd(18)} ${o.candidate.padEnd(44)} ${o.before} → ${o.after ?? "(no proposal)"}${o.lostPositive ? " LOST A POSITIVE" : ""}${o.proposal ? `  [${o.proposal}]` : ""}${o.why ? `  why not: ${o.why}` : ""}`,
    );
  return out;
}

export const refineRealBenchmark: Benchmark = {
  name: "refine-real",
  description:
    "share of over-broad or inert drafts (every cluster of the demo and dev corpora) promising after one accepted refinement, no positive lost",
  async run(log) {
    const { found, missing } = corpora();
    for (const m of missing) log(`skipped ${m}`);
    const all: RefineOutcome[] = [];
    for (const c of found) all.push(...(await refineCorpus(c, log)));
    const ok = all.filter((o) => o.after === "promising" && !o.lostPositive).length;
    const result: BenchResult = {
      target: "promising after one refinement ÷ over-broad or inert drafts",
      measured: all.length === 0 ? 1 : ok / all.length,
      limit: 0.6,
      kind: "min",
      note: `${ok}/${all.length} on ${found.map((c) => c.name).join(", ")}`,
    };
    return [result];
  },
};
