import type { Key } from "ink";
import { keyMatches } from "../keys/spec.js";
import type { CommandId, KeyTable } from "../keys/table.js";
import { type KeyHandler, KeyLayer, useCommandReporter, useKeypress } from "./useKeypress.js";

/** Runs a command; returning false means "not now" and the key passes on (any other value: handled). */
export type CommandHandler = (input: string, key: Key) => unknown;

/** One handler per command id of the table (tsc checks none is missing). */
export type Handlers<T extends KeyTable> = Record<CommandId<T>, CommandHandler>;

export interface UseKeyTableOptions {
  layer?: KeyLayer;
  isActive?: boolean;
  /** Keys no command matched (a text field's typing); return true to consume. */
  fallback?: KeyHandler;
}

/**
 * Binds a key table: a key runs the first command listing it. The same table feeds the `?`
 * help and the footer hints, so what is shown is what is handled.
 */
export function useKeyTable<T extends KeyTable>(
  table: T,
  handlers: Handlers<T>,
  opts: UseKeyTableOptions = {},
): void {
  const report = useCommandReporter();
  useKeypress(
    (input, key) => {
      for (const c of table.commands) {
        if (!c.keys.some((k) => keyMatches(k, input, key))) continue;
        const run = (handlers as Record<string, CommandHandler>)[c.id];
        if (run && run(input, key) !== false) {
          report?.(table.scope, c.id);
          return true;
        }
      }
      return opts.fallback?.(input, key) ?? false;
    },
    {
      layer: opts.layer ?? KeyLayer.Screen,
      isActive: opts.isActive ?? true,
      table,
    },
  );
}
