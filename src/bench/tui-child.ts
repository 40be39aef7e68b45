#!/usr/bin/env node
/**
 * One measurement of the tui benchmark, in a fresh process so start-up and peak memory
 * are its own: `bare` renders a bare Ink app; `open DIR N` opens the workbench on a
 * warm workspace of N attempts and, with `keys`, times list moves, search keystrokes and
 * `q`; `quit DIR` times Ctrl-C during the first read; `build DIR` reads a workspace cold.
 * Times are from process start (performance.now()). Prints one JSON object.
 */
import { createElement } from "react";

const now = () => performance.now();

async function until(cond: () => boolean, what: string, frame: () => string | undefined) {
  const start = now();
  while (!cond()) {
    if (now() - start > 300_000)
      throw new Error(`timed out waiting for ${what}; last frame:\n${frame() ?? ""}`);
    await new Promise((r) => setImmediate(r));
  }
}

async function bare(): Promise<Record<string, number>> {
  const [{ render }, { Text }] = await Promise.all([import("ink-testing-library"), import("ink")]);
  const app = render(createElement(Text, null, "reading workspace"));
  await until(() => (app.lastFrame() ?? "").includes("reading"), "bare frame", app.lastFrame);
  const firstFrame = now();
  app.unmount();
  return { firstFrame, maxRss: process.resourceUsage().maxRSS * 1024 };
}

/** The workbench at 120×36 and when it asked to quit (0 until then). */
async function renderBoot(dir: string) {
  const [{ render }, { Boot }] = await Promise.all([
    import("ink-testing-library"),
    import("../ui/Boot.js"),
  ]);
  let at = 0;
  const app = render(
    createElement(Boot, {
      dir,
      size: { columns: 120, rows: 36 },
      onQuit: () => {
        at ||= now();
      },
    }),
  );
  return { app, quitAt: () => at };
}

async function open(dir: string, attempts: number, keys: boolean, decide = false) {
  const { app, quitAt } = await renderBoot(dir);
  const frame = () => app.lastFrame() ?? "";
  await until(() => frame().trim().length > 0, "the first frame", app.lastFrame);
  const firstFrame = now();
  const hadProgress = /reading workspace/.test(frame()) ? 1 : 0;
  const usable = `${attempts} attempts`;
  await until(() => frame().includes(usable) && frame().includes("▸"), usable, app.lastFrame);
  const usableFrame = now();
  const rssAtUsable = process.memoryUsage().rss;
  const out: Record<string, number> = { firstFrame, usableFrame, hadProgress, rssAtUsable };
  // Peak memory counts what the workbench loads after its first usable frame too: the other
  // screens' code (loaded in the background) and the candidate files (opening Candidates
  // waits for them), then back to Triage.
  const { preloadScreens } = await import("../ui/screens/ScreenBody.js");
  await preloadScreens();
  app.stdin.write("4");
  await until(() => frame().includes("family / lineage"), "the Candidates screen", app.lastFrame);
  app.stdin.write("1");
  await until(() => frame().includes(usable) && frame().includes("▸"), usable, app.lastFrame);
  if (decide) Object.assign(out, await decideAndEdit(app, frame));
  if (keys) {
    // List moves: each `j` until the frame shows the cursor on a new row.
    let move = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      const before = frame();
      const t0 = now();
      app.stdin.write("j");
      await until(() => frame() !== before, "a list move", app.lastFrame);
      move = Math.min(move, now() - t0);
    }
    out.listMove = move;
    app.stdin.write("/");
    await until(() => frame().includes("type to search"), "the search box", app.lastFrame);
    let typed = "";
    let search = Number.POSITIVE_INFINITY;
    for (const ch of "serve") {
      typed += ch;
      const t0 = now();
      app.stdin.write(ch);
      const want = `matches for “${typed}”`;
      await until(() => frame().includes(want), want, app.lastFrame);
      if (typed.length > 1) search = Math.min(search, now() - t0); // the first builds the index
    }
    out.searchKey = search;
    app.stdin.write("\x1b");
    // the box shows matches now, not its placeholder: wait for those to go (a key sent right
    // after Esc, before the overlay closed, would arrive as Alt+key)
    await until(() => !frame().includes("matches for"), "the search box to close", app.lastFrame);
    const t0 = now();
    app.stdin.write("q");
    await until(() => quitAt() > 0, "quit", app.lastFrame);
    out.quit = quitAt() - t0;
  }
  app.unmount();
  out.maxRss = process.resourceUsage().maxRSS * 1024;
  return out;
}

/**
 * On a mined workspace: a cluster rename from its Enter to the frame that shows the new
 * name (the decision recorded and the clusters read again), an exclude of that cluster from
 * its Enter to the frame whose header counts its attempts as excluded, `u` to the frame that
 * no longer does, then opening the first candidate in the editor from its Enter to the frame
 * with its fields.
 */
async function decideAndEdit(
  app: Awaited<ReturnType<typeof renderBoot>>["app"],
  frame: () => string,
): Promise<Record<string, number>> {
  app.stdin.write("3");
  await until(() => frame().includes("point  family"), "the clusters", app.lastFrame);
  app.stdin.write("r");
  await until(() => frame().includes("new name:"), "the rename field", app.lastFrame);
  // A name no earlier round gave (each round opens the same workspace): a wait for a name
  // the frame already shows would pass before the keys were handled.
  const name = `bench renamed ${process.pid}`;
  app.stdin.write("\x15"); // Ctrl-U clears the pre-filled name
  for (const ch of name) app.stdin.write(ch);
  await until(() => frame().includes(`new name: ${name}`), "the typed name", app.lastFrame);
  let t0 = now();
  app.stdin.write("\r");
  await until(
    () =>
      !frame().includes("new name:") &&
      frame()
        .split("\n")
        .some((l) => l.startsWith("▸") && l.includes(name)),
    "the renamed cluster",
    app.lastFrame,
  );
  const decision = now() - t0;
  // An exclude changes triage (the header's excluded count); its undo changes it back.
  const excluded = () => Number(/\((\d+) excluded\)/.exec(frame())?.[1] ?? Number.NaN);
  const before = excluded();
  app.stdin.write("e");
  await until(() => frame().includes("exclude reason:"), "the exclude field", app.lastFrame);
  for (const ch of "bench") app.stdin.write(ch);
  await until(() => frame().includes("exclude reason: bench"), "the typed reason", app.lastFrame);
  t0 = now();
  app.stdin.write("\r");
  await until(() => excluded() > before, "the excluded count after the exclude", app.lastFrame);
  const exclude = now() - t0;
  t0 = now();
  app.stdin.write("u");
  await until(() => excluded() === before, "the excluded count after the undo", app.lastFrame);
  const undo = now() - t0;
  app.stdin.write("4");
  await until(() => frame().includes("family / lineage"), "the Candidates screen", app.lastFrame);
  t0 = now();
  app.stdin.write("\r");
  await until(
    () => /eligibility|tracking|rules/.test(frame()) && frame().includes("preview"),
    "the editor",
    app.lastFrame,
  );
  const editorOpen = now() - t0;
  app.stdin.write("\x1b");
  app.stdin.write("1");
  return { decision, exclude, undo, editorOpen };
}

/** Ctrl-C typed while the first read is still going (right after the first frame). */
async function quitEarly(dir: string) {
  const { app, quitAt } = await renderBoot(dir);
  await until(() => (app.lastFrame() ?? "").trim().length > 0, "the first frame", app.lastFrame);
  const t0 = now();
  app.stdin.write("\x03");
  await until(() => quitAt() > 0, "quit", app.lastFrame);
  app.unmount();
  return { quitEarly: quitAt() - t0 };
}

async function main(): Promise<void> {
  const [mode, dir, n, keys] = process.argv.slice(2);
  if (mode === "mine") {
    // Labels and clusters once (heuristic), as `fire mine` does.
    const { openCurrentWorkspace } = await import("../core/workspace/open.js");
    const { runMining } = await import("../core/mine/run-mining.js");
    const r = await runMining(await openCurrentWorkspace(dir!), { labeler: "heuristic" });
    process.stdout.write(`${JSON.stringify({ clusters: r.clusters.length })}\n`);
    process.exit(0);
  }
  if (mode === "build") {
    // The cold first read: parse cache and workspace index are written.
    const { loadWorkspace } = await import("../core/workspace/load.js");
    const ws = await loadWorkspace(dir!);
    process.stdout.write(
      `${JSON.stringify({ attempts: ws.attempts.length, errors: ws.errors.length })}\n`,
    );
    process.exit(0);
  }
  const result =
    mode === "bare"
      ? await bare()
      : mode === "quit"
        ? await quitEarly(dir!)
        : await open(dir!, Number(n), keys?.includes("keys") ?? false, keys?.includes("decide"));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
