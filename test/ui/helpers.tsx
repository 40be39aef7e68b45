import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { act } from "react";
import { afterEach } from "vitest";
import { App } from "../../src/ui/App.js";
import { themeFor } from "../../src/ui/theme.js";
import { REPO_ROOT } from "../helpers/paths.js";

/** Keys as a terminal sends them. */
export const KEY = {
  enter: "\r",
  esc: "\u001B",
  tab: "\t",
  up: "\u001B[A",
  down: "\u001B[B",
  backspace: "\u007F",
  ctrlS: "\u0013",
  ctrlU: "\u0015",
} as const;

/**
 * Polls until `cond` holds (no fixed sleeps); fails with the last frame after `timeoutMs`.
 * The ceiling guards a hang, not speed: a cold read of the demo workspace on a loaded 2-core
 * machine has taken 25 s.
 */
export async function waitFor(
  cond: () => boolean,
  frame: () => string | undefined,
  timeoutMs = 60_000,
): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) {
      throw new Error(`condition not met; last frame:\n${frame() ?? "(none)"}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Types keys one write at a time and returns once the app has handled each: the write, Ink's
 * flush of a lone Esc (a setImmediate) and every render and effect React scheduled for them.
 * React renders a key's update in a scheduler task, not at the write, and under load the
 * scheduler yields between tasks; waiting one setImmediate then let the next key reach the
 * handlers of the frame before (the `d` after `/` went to the pager, not its search field).
 * `act` flushes that work before the next key, as a user's next key follows what they saw.
 */
export async function typeKeys(stdin: { write(data: string): void }, ...keys: string[]) {
  const scope = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
  for (const k of keys) {
    const was = scope.IS_REACT_ACT_ENVIRONMENT;
    scope.IS_REACT_ACT_ENVIRONMENT = true;
    try {
      await act(async () => {
        stdin.write(k);
        await new Promise((res) => setImmediate(res));
      });
    } finally {
      scope.IS_REACT_ACT_ENVIRONMENT = was;
    }
  }
}

/** A temp copy of the demo workspace (config, traces, candidates) so tests never write the repo. */
export function demoCopy(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "fire-ui-"));
  for (const p of ["fire.config.json", "traces", "candidates"]) {
    cpSync(join(REPO_ROOT, p), join(dir, p), { recursive: true });
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Demo copies for one test file, each removed after the test that made it (call once, at the
 * file's top level): `workspace()` a plain copy, `withDraft()` one holding `writeDraft`'s draft.
 */
export function demoCopiesPerTest(): {
  workspace: () => string;
  withDraft: () => { dir: string; draft: string };
} {
  const copies: { cleanup: () => void }[] = [];
  afterEach(() => {
    for (const c of copies.splice(0)) c.cleanup();
  });
  const workspace = () => {
    const c = demoCopy();
    copies.push(c);
    return c.dir;
  };
  return {
    workspace,
    withDraft: () => {
      const dir = workspace();
      return { dir, draft: writeDraft(dir) };
    },
  };
}

/**
 * A draft to edit in a workspace: the reference service-persistence mechanics under the id
 * `my-serve`, status draft, at `candidates/drafts/my-serve.yaml`. Returns its path.
 */
export function writeDraft(dir: string): string {
  const ref = readFileSync(join(dir, "candidates/reference/service-persistence.yaml"), "utf8");
  mkdirSync(join(dir, "candidates/drafts"), { recursive: true });
  const draft = join(dir, "candidates/drafts/my-serve.yaml");
  writeFileSync(
    draft,
    ref
      .replace("id: ref-service-persistence", "id: my-serve")
      .replace("status: frozen", "status: draft"),
  );
  return draft;
}

/**
 * Renders the workbench at 80×24 without colour, with helpers to type and wait. The test
 * terminal is given the same size: ink-testing-library's stdout is 100 columns wide, and Ink
 * lays text out against it, so a wider frame had rows cut at 100 that a real terminal of that
 * width draws whole (the search box's right border fell at column 100 of 120).
 */
export function renderApp(dir: string, size = { columns: 80, rows: 24 }) {
  const r = render(<App dir={dir} size={size} theme={themeFor({ NO_COLOR: "1" })} />);
  Object.defineProperty(r.stdout, "columns", { value: size.columns, configurable: true });
  Object.defineProperty(r.stdout, "rows", { value: size.rows, configurable: true });
  r.stdout.emit("resize");
  const frame = () => r.lastFrame() ?? "";
  return {
    ...r,
    frame,
    /** Waits until the frame contains every text. */
    async see(...texts: string[]) {
      await waitFor(() => texts.every((t) => frame().includes(t)), frame);
    },
    async gone(text: string) {
      await waitFor(() => !frame().includes(text), frame);
    },
    /** Types keys one write at a time (each is one keypress for Ink), each handled before the next. */
    press: (...keys: string[]) => typeKeys(r.stdin, ...keys),
  };
}

/**
 * The workbench sized by its terminal (no size prop), so a resize is a real one: `resize`
 * sets the test terminal's size and emits Node's resize event, as a terminal does.
 */
export function renderTerminal(dir: string, columns: number, rows: number) {
  const r = render(<App dir={dir} theme={themeFor({ NO_COLOR: "1" })} />);
  const frame = () => r.lastFrame() ?? "";
  const resize = (c: number, h: number) => {
    Object.defineProperty(r.stdout, "columns", { value: c, configurable: true });
    Object.defineProperty(r.stdout, "rows", { value: h, configurable: true });
    r.stdout.emit("resize");
  };
  resize(columns, rows);
  const see = (...t: string[]) => waitFor(() => t.every((x) => frame().includes(x)), frame);
  const press = (...keys: string[]) => typeKeys(r.stdin, ...keys);
  /** Every row fits `w` columns (and, given `h`, there are at most `h` rows). */
  const fits = (w: number, h = Number.POSITIVE_INFINITY) => {
    const lines = frame().split("\n");
    return lines.length <= h && lines.every((l) => [...l].length <= w);
  };
  return { r, frame, resize, see, press, fits };
}

/** The selected row of a frame (the one a list marks with ▸), or "". */
export function selectedRow(app: { frame(): string }): string {
  return (
    app
      .frame()
      .split("\n")
      .find((l) => l.startsWith("▸")) ?? ""
  );
}
