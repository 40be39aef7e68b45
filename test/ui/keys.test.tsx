import { Text } from "ink";
import { render } from "ink-testing-library";
import { afterAll, describe, expect, it } from "vitest";
import { KeypressProvider } from "../../src/ui/hooks/useKeypress.js";
import { useKeyTable } from "../../src/ui/hooks/useKeyTable.js";
import { type KeyTable, keysText } from "../../src/ui/keys/table.js";
import * as TABLES from "../../src/ui/keys/tables.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

const ALL: KeyTable[] = Object.values(TABLES);

/** The bytes a terminal sends for a key of a table. */
function sequence(spec: string): string {
  const named: Record<string, string> = {
    up: "\u001B[A",
    down: "\u001B[B",
    right: "\u001B[C",
    left: "\u001B[D",
    pgup: "\u001B[5~",
    pgdn: "\u001B[6~",
    home: "\u001B[H",
    end: "\u001B[F",
    enter: "\r",
    esc: "\u001B",
    tab: "\t",
    "shift+tab": "\u001B[Z",
    space: " ",
    backspace: "\u007F",
    "alt+left": "\u001B[1;3D",
    "alt+right": "\u001B[1;3C",
    "ctrl+left": "\u001B[1;5D",
    "ctrl+right": "\u001B[1;5C",
  };
  if (named[spec]) return named[spec];
  if (spec.startsWith("ctrl+")) return String.fromCharCode(spec.charCodeAt(5) - 96);
  if (spec.startsWith("alt+")) return `\u001B${spec.slice(4)}`;
  return spec;
}

function Probe({ table }: { table: KeyTable }) {
  const handlers = Object.fromEntries(table.commands.map((c) => [c.id, () => undefined]));
  useKeyTable(table, handlers as never);
  return <Text>{table.scope}</Text>;
}

describe("key bindings as data", () => {
  it("every key of every table dispatches to its own command (none shadowed)", async () => {
    for (const table of ALL) {
      const seen: string[] = [];
      const r = render(
        <KeypressProvider onCommand={(_s, id) => seen.push(id)}>
          <Probe table={table} />
        </KeypressProvider>,
      );
      await waitFor(() => (r.lastFrame() ?? "").includes(table.scope), r.lastFrame);
      for (const c of table.commands)
        for (const k of c.keys) {
          const before = seen.length;
          r.stdin.write(sequence(k));
          await waitFor(
            () => seen.length > before,
            () => `${table.scope}: ${k} → nothing`,
          );
          expect(`${table.scope}: ${k} → ${seen.at(-1)}`).toBe(`${table.scope}: ${k} → ${c.id}`);
        }
      r.unmount();
    }
  });

  it("the footer and ? help of each screen list every entry of its live tables", async () => {
    const app = renderApp(ws.dir, { columns: 600, rows: 60 });
    await app.see(DEMO_ATTEMPTS);
    const footer = () => app.frame().split("\n").at(-1) ?? "";
    const check = async (tables: KeyTable[]) => {
      // a global command whose every key the screen takes over is left out of the footer
      const own = new Set(tables.slice(0, -1).flatMap((t) => t.commands.flatMap((c) => c.keys)));
      for (const t of tables)
        for (const c of t.commands) {
          const shadowed = t === tables.at(-1) && c.keys.every((k) => own.has(k));
          const hint = `${c.short ?? keysText(c)} ${c.label}`;
          if (shadowed) expect(footer(), `${t.scope}: ${c.label}`).not.toContain(hint);
          else expect(footer(), `${t.scope}: ${c.label}`).toContain(c.label);
        }
      await app.press("?");
      await app.see("Keys · Esc closes");
      for (const t of tables) {
        expect(app.frame()).toContain(t.scope);
        for (const c of t.commands) expect(app.frame()).toContain(c.help ?? c.label);
      }
      await app.press(KEY.esc);
      await app.gone("Keys · Esc closes");
    };
    const { GLOBAL_KEYS: G } = TABLES;
    await check([TABLES.TRIAGE_TASKS_KEYS, G]);
    await app.press(KEY.enter);
    await app.see("c compare · Esc tasks");
    await check([TABLES.TRIAGE_ATTEMPTS_KEYS, G]);
    await app.press(KEY.esc);
    await app.gone("Space mark");
    await app.press("x");
    await app.see("Excluded attempts");
    await check([TABLES.TRIAGE_EXCLUSIONS_KEYS, G]);
    await app.press("3");
    await app.see("Nothing mined yet");
    await check([TABLES.MECHANISMS_KEYS, G]);
    await app.press("4");
    await app.see("family / lineage");
    await check([TABLES.CANDIDATES_KEYS, G]);
    await app.press("5", "p");
    await app.see("not screened");
    await check([TABLES.SCREENS_REPLAY_KEYS, G]);
    await app.press("a");
    await check([TABLES.SCREENS_AUDIT_KEYS, G]);
    await app.press("s");
    await check([TABLES.SCREENS_RUNS_KEYS, G]);
    await app.press("6");
    await app.see("Frozen portfolios");
    await check([TABLES.PORTFOLIO_KEYS, G]);
    app.unmount();
  });

  it("? help fits 80 columns, wraps long lines, scrolls, and a key inside it does not act", async () => {
    const app = renderApp(ws.dir, { columns: 80, rows: 14 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("?");
    await app.see("Keys 1–", "j/k scroll", "Triage · tasks");
    expect(
      app
        .frame()
        .split("\n")
        .every((l) => l.length <= 80),
    ).toBe(true);
    expect(app.frame()).not.toContain("quit");
    // scroll through: every row seen, none wider than 80; the long global line wraps
    const seen = new Set<string>();
    for (let i = 0; i < 40 && !app.frame().includes("│ q "); i++) {
      for (const l of app.frame().split("\n")) seen.add(l);
      await app.press("j");
    }
    for (const l of app.frame().split("\n")) seen.add(l);
    expect([...seen].every((l) => l.length <= 80)).toBe(true);
    const rows = [...seen].join("\n");
    expect(rows).toMatch(/switch screen: 1 Triage 2 Attempt 3 Mechanisms/);
    expect(rows).toMatch(/│ +[^│]*6 Portfolio/);
    expect(rows).toContain("quit");
    await app.press("3"); // not a help key: ignored, help stays
    await app.see("Keys");
    expect(app.frame()).not.toContain("Nothing mined yet");
    await app.press(KEY.esc);
    await app.see("filters:");
    app.unmount();
  });

  it("keys sent in one write are handled one by one (jjj moves three rows)", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    const rows = () =>
      app
        .frame()
        .split("\n")
        .filter((l) => /^[▸ ] [◐○●⊘] /.test(l));
    const selectedAt = () => rows().findIndex((l) => l.startsWith("▸"));
    expect(selectedAt()).toBe(0);
    app.stdin.write("jjj");
    await waitFor(() => selectedAt() === 3, app.frame);
    app.stdin.write("jjk");
    await waitFor(() => selectedAt() === 4, app.frame);
    app.unmount();
  });
});
