import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { demoCopiesPerTest, KEY, renderApp, selectedRow, waitFor } from "./helpers.js";

/**
 * Issue 13, "What was seen · Reading" in the workbench itself: `o` on a 25-line tool output,
 * `v` on a 119-line verifier log (PgUp/PgDn scroll the pager, not the timeline), and the
 * timeline's previews of real Codex results and Claude Code's non-shell tools.
 */
const { workspace } = demoCopiesPerTest();

type Rendered = ReturnType<typeof renderApp>;
const selected = selectedRow;
const span = (app: Rendered) => {
  const m = /lines (\d+)–(\d+) of (\d+)/.exec(app.frame());
  return m ? { from: Number(m[1]), to: Number(m[2]), of: Number(m[3]) } : undefined;
};
const PGDN = "\u001B[6~";
const PGUP = "\u001B[5~";

async function openAttempt(app: Rendered, idPart: string) {
  await app.see(DEMO_ATTEMPTS);
  await app.press("/", ...idPart.split(""));
  await app.see(`▸ attempt   `, idPart);
  await app.press(KEY.enter);
  await app.see(`${idPart}-`, "markers here");
}

describe("reading in the Attempt screen", () => {
  it("o on a 25-line tool output shows it all: scrolls to its last line", async () => {
    const dir = workspace();
    // the output's last lines, as the trace holds them
    const trajectory = JSON.parse(
      readFileSync(
        join(
          dir,
          "traces/generated/2026-10-12__08-00-00__terminus-2__gpt-5/csv-to-json-parser__pbmvMpb/agent/trajectory.json",
        ),
        "utf8",
      ),
    );
    const output: string = trajectory.steps[2].observation.results[0].content;
    expect(output.split("\n")).toHaveLength(25);
    const heredocTail = output
      .trimEnd()
      .split("\n")
      .slice(-3)
      .map((l) => l.trim());
    const app = renderApp(dir, { columns: 120, rows: 24 });
    await openAttempt(app, "csv-to-json-parser__pbmvMpb");
    // the result of the `cat > /app/csv2json.py` heredoc: 25 lines
    for (let i = 0; i < 12 && !/tool_result .*cat > \/app\/csv2json/.test(selected(app)); i++)
      await app.press("j");
    expect(selected(app)).toMatch(/tool_result .*cat > \/app\/csv2json/);
    await app.press("o");
    await app.see("· tool_result", "lines 1–");
    expect(span(app)).toMatchObject({ from: 1, of: 25 });
    expect(span(app)!.to).toBeLessThan(25); // 24 rows: it does not fit, so it must scroll
    await app.press("G");
    await waitFor(() => span(app)?.to === 25, app.frame);
    for (const l of heredocTail) expect(app.frame()).toContain(l);
    await app.press(KEY.esc);
    await app.see("markers here");
    app.unmount();
  });

  it("v reads the whole 119-line verifier log; PgDn/PgUp scroll it, not the timeline", async () => {
    const dir = workspace();
    const log = readFileSync(
      join(
        dir,
        "traces/harbor-openclaw/clawbench-19-kimi2.6-2/t4-life-trip-plan__AjimJm5/steps/run/verifier/test-stdout.txt",
      ),
      "utf8",
    );
    const last = log.trimEnd().split("\n").at(-1)!.trim();
    const app = renderApp(dir, { columns: 120, rows: 24 });
    await openAttempt(app, "t4-life-trip-plan__AjimJm5");
    await app.press("j", "j");
    const row = selected(app);
    await app.press("v");
    await app.see("verifier output", "lines 1–");
    const first = span(app)!;
    expect(first.of).toBeGreaterThanOrEqual(118);
    expect(app.frame()).toContain('"reward": 0.763'); // line 2: the log is read from its top
    await app.press(PGDN);
    await waitFor(() => span(app)!.from > 1, app.frame);
    await app.press(PGDN);
    const two = span(app)!.from;
    await app.press(PGUP);
    await waitFor(() => span(app)!.from < two, app.frame);
    await app.press("G");
    await waitFor(() => span(app)!.to === first.of, app.frame);
    expect(app.frame()).toContain(last);
    await app.press(KEY.esc);
    await app.see("markers here");
    expect(selected(app)).toBe(row); // the timeline never moved
    app.unmount();
  });

  it("t reads the task text in the pager", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 24 });
    await openAttempt(app, "t4-life-trip-plan__AjimJm5");
    await app.press("t");
    await app.see("task text · clawbench/t4-life-trip-plan", "lines 1–");
    await app.press(KEY.esc);
    await app.see("markers here");
    app.unmount();
  });
});

/** Real Claude Code and Codex sessions, recorded from the real clients (test/fixtures). */
const real = mkdtempSync(join(tmpdir(), "fire-ui-real-"));
for (const set of ["codex-good-probe", "claude-claude-write"])
  cpSync(
    join(REPO_ROOT, "test/fixtures/real-clients", set, "sessions"),
    join(real, "traces", set),
    {
      recursive: true,
    },
  );
afterAll(() => rmSync(real, { recursive: true, force: true }));

describe("timeline previews of real sessions", () => {
  it("sessions without a verifier get a task id from their working folder", async () => {
    const app = renderApp(real, { columns: 120, rows: 30 });
    await app.see("2 attempts", "k/n");
    // both clients ran the same prompt in a folder named work: one task, <folder>/<slug>-<hash>
    expect(app.frame()).toContain("· 1 tasks:");
    expect(app.frame()).toMatch(/^▸ \S+ work\/deploy-the-static-site\S*-[0-9a-f]{8} /m);
    app.unmount();
  });

  it("a Codex result previews its output, not its Chunk ID / Wall time header", async () => {
    const app = renderApp(real, { columns: 120, rows: 30 });
    await app.see("2 attempts", "k/n");
    await app.press("/", ..."01a23102".split("")); // the Codex session's id
    await app.see("▸ attempt   01a23102");
    await app.press(KEY.enter);
    await app.see("markers here", "· codex");
    expect(app.frame()).toMatch(/tool_result exit 0 made site/);
    expect(app.frame()).not.toContain("Chunk ID");
    expect(app.frame()).not.toContain("Wall time");
    app.unmount();
  });

  it("Claude Code's Write previews its arguments, not `$ Write {json}`", async () => {
    const app = renderApp(real, { columns: 120, rows: 30 });
    await app.see("2 attempts", "k/n");
    await app.press("/", ..."2768a02d".split("")); // the Claude Code session's id
    await app.see("▸ attempt   2768a02d");
    await app.press(KEY.enter);
    await app.see("markers here", "· claude-code");
    expect(app.frame()).toMatch(/tool_call +Write file_path=\S*site\/index\.html content=/);
    expect(app.frame()).not.toContain("$ Write");
    expect(app.frame()).not.toContain('{"file_path"');
    app.unmount();
  });
});
