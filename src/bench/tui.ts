import { cpSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import type { Benchmark, BenchResult } from "./types.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const ATTEMPTS = Number(process.env.FIRE_BENCH_TUI_ATTEMPTS ?? 10_000);
const PREVIEW_ATTEMPTS = 1_000;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  cond: () => boolean,
  what: string,
  frame: () => string | undefined,
  timeoutMs = 600_000,
): Promise<void> {
  const start = now();
  while (!cond()) {
    if (now() - start > timeoutMs)
      throw new Error(`tui bench: timed out waiting for ${what}; last frame:\n${frame() ?? ""}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** Writes a generated corpus of about `attempts` attempts (bytes per attempt measured first). */
async function corpus(dir: string, attempts: number): Promise<number> {
  const { writeCorpus } = await import("../gen/corpus.js");
  const formats = ["harbor", "claude", "codex"] as ("harbor" | "claude" | "codex")[];
  const probe = await writeCorpus({
    outDir: join(dir, "probe"),
    seed: 3,
    targetBytes: 2e6,
    formats,
  });
  await rm(join(dir, "probe"), { recursive: true, force: true });
  const perAttempt = probe.bytes / probe.attempts;
  const r = await writeCorpus({
    outDir: join(dir, "traces"),
    seed: 3,
    targetBytes: Math.round(perAttempt * attempts),
    formats,
  });
  return r.attempts;
}

/**
 * TUI speed on a generated workspace: first full frame ÷ loading the workspace index (both
 * warm: the parse cache is built first), one fuzzy-search keystroke's re-render, and the live
 * preview's compile + replay of an edited candidate over 1,000 attempts.
 */
export const tuiBenchmark: Benchmark = {
  name: "tui",
  description: `workbench on a ${ATTEMPTS}-attempt generated workspace`,
  async run(log) {
    const dir = await mkdtemp(join(tmpdir(), "fire-bench-tui-"));
    try {
      const n = await corpus(dir, ATTEMPTS);
      cpSync(join(ROOT, "candidates"), join(dir, "candidates"), { recursive: true });
      log(`generated ${n} attempts`);
      const { loadWorkspace } = await import("../core/workspace/load.js");
      const ws0 = await loadWorkspace(dir); // builds the parse cache
      let index = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 2; i++) {
        const t0 = now();
        await loadWorkspace(dir);
        index = Math.min(index, now() - t0);
      }
      const [{ render }, { App }, { themeFor }] = await Promise.all([
        import("ink-testing-library"),
        import("../ui/App.js"),
        import("../ui/theme.js"),
      ]);
      const full = `${ws0.attempts.length} attempts`;
      let frame = Number.POSITIVE_INFINITY;
      let app: ReturnType<typeof render> | undefined;
      for (let i = 0; i < 2; i++) {
        app?.unmount();
        const t0 = now();
        app = render(
          createElement(App, {
            dir,
            size: { columns: 80, rows: 24 },
            theme: themeFor({ NO_COLOR: "1" }),
          }),
        );
        const a = app;
        await until(() => (a.lastFrame() ?? "").includes(full), full, a.lastFrame);
        frame = Math.min(frame, now() - t0);
      }
      log(`first full frame ${frame.toFixed(0)} ms, index ${index.toFixed(0)} ms`);
      // Fuzzy search: one keystroke after the index is built.
      const a = app!;
      a.stdin.write("/");
      await until(
        () => (a.lastFrame() ?? "").includes("type to search"),
        "the search box",
        a.lastFrame,
      );
      let typed = "";
      for (const ch of "ser") {
        a.stdin.write(ch);
        typed += ch;
        await sleep(50);
      }
      // Keystroke → the frame listing the matches for the new query.
      let key = Number.POSITIVE_INFINITY;
      for (const q of ["v", "e"]) {
        typed += q;
        const t0 = now();
        a.stdin.write(q);
        const want = `matches for “${typed}”`;
        await until(() => (a.lastFrame() ?? "").includes(want), want, a.lastFrame);
        key = Math.min(key, now() - t0);
      }
      a.unmount();
      // The search alone (no rendering), to tell fuse.js time from frame time.
      const { createSearcher, searchItems } = await import("../ui/data/search.js");
      const idx = createSearcher(searchItems(ws0.attempts, [], []));
      let fuse = Number.POSITIVE_INFINITY;
      for (const q of ["serv", "serve"]) {
        const t0 = now();
        idx.search(q, 50);
        fuse = Math.min(fuse, now() - t0);
      }
      log(`search alone ${fuse.toFixed(1)} ms`);
      // Live preview: compile + replay of an edited candidate over 1,000 attempts.
      const { previewText } = await import("../ui/data/preview.js");
      const file = join(dir, "candidates/reference/service-persistence.yaml");
      const text = readFileSync(file, "utf8");
      const some = ws0.attempts.slice(0, PREVIEW_ATTEMPTS);
      let preview = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const t0 = now();
        previewText(text.replace("keep|leave", `keep|leave|hold${i}`), file, some, {
          pool: [],
          seed: ws0.config.screen.seed,
        });
        preview = Math.min(preview, now() - t0);
      }
      const results: BenchResult[] = [
        {
          target: "first full frame ÷ loading the workspace index",
          measured: frame / index,
          limit: 2,
          kind: "max",
          note: `${ws0.attempts.length} attempts: frame ${frame.toFixed(0)} ms, index ${index.toFixed(0)} ms`,
        },
        {
          target: "fuzzy-search keystroke re-render (ms)",
          measured: key,
          limit: 50,
          kind: "max",
          note: `${ws0.attempts.length} attempts + tasks + candidates; search alone ${fuse.toFixed(0)} ms`,
        },
        {
          target: `live-preview refresh on ${some.length} attempts (ms)`,
          measured: preview,
          limit: 200,
          kind: "max",
        },
      ];
      return results;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
