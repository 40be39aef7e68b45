import { type KeySpec, keyLabel } from "./spec.js";

/** One command of a screen: the keys that run it and what it does. */
export interface Command {
  /** Stable id; the screen's handler of the same name runs it. */
  id: string;
  keys: readonly KeySpec[];
  /** A few words for the footer hint (`open`, `promote`). */
  label: string;
  /** A longer line for the `?` help (defaults to the label). */
  help?: string;
  /** Keys as help and hints write them, when the list is long (`↑↓ j/k PgUp/PgDn g/G`). */
  show?: string;
  /** Keys as the footer writes them, when shorter than `show` (`j/k`). */
  short?: string;
}

/** The commands of one screen or mode; handling, help and hints all come from it. */
export interface KeyTable {
  /** Shown as the help section title (`Triage · tasks`). */
  scope: string;
  commands: readonly Command[];
}

/** The ids of a table's commands, so a screen must handle each one (checked by tsc). */
export type CommandId<T extends KeyTable> = T["commands"][number]["id"];

/** Defines a table, keeping its command ids as literal types. */
export function keyTable<const C extends readonly Command[]>(
  scope: string,
  commands: C,
): { scope: string; commands: C } {
  return { scope, commands };
}

/** The keys of a command as help and hints write them. */
export function keysText(c: Command): string {
  return c.show ?? c.keys.map(keyLabel).join("/");
}

/** `j/k move · Enter open` — every command of the tables, in order. */
export function hintText(tables: readonly KeyTable[]): string {
  return tables
    .flatMap((t) => t.commands)
    .map((c) => `${c.short ?? keysText(c)} ${c.label}`)
    .join(" · ");
}

/** One help line per command, grouped by table (scope first). */
export interface HelpLine {
  kind: "scope" | "command";
  keys: string;
  text: string;
}

export function helpLines(tables: readonly KeyTable[]): HelpLine[] {
  const lines: HelpLine[] = [];
  for (const t of tables) {
    lines.push({ kind: "scope", keys: "", text: t.scope });
    for (const c of t.commands)
      lines.push({ kind: "command", keys: keysText(c), text: c.help ?? c.label });
  }
  return lines;
}
