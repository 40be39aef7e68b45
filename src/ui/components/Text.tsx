import { Text as InkText } from "ink";
import type { ComponentProps, ReactNode } from "react";
import { printable } from "../../core/printable.js";

/**
 * THE text component of the workbench: ink's `Text`, with every string child made printable
 * (core/printable.ts) before ink draws it. Task ids, agents, models, commands, outputs and
 * candidate titles come from traces and candidate files, which are untrusted: an OSC 52
 * clipboard write, a window-title change, a C1 control or a bidi override in one of them is
 * shown as a visible code, never sent to the terminal. Every screen and component imports
 * `Text` from here, never from ink (test/attacks/terminal-escapes.test.ts checks it).
 */
export function Text(props: ComponentProps<typeof InkText>) {
  return <InkText {...props}>{safe(props.children)}</InkText>;
}

/** String children made printable; elements (nested `Text`) neutralise their own. */
function safe(node: ReactNode): ReactNode {
  if (typeof node === "string") return printable(node);
  if (Array.isArray(node)) return node.map(safe);
  return node;
}
