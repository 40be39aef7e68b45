import { useInput } from "ink";
import { type ComponentType, type ReactNode, useEffect, useRef, useState } from "react";
import type { TriageGlance } from "../core/app/glance.js";
import type { AppProps } from "./App.js";
import { Text } from "./components/Text.js";
import { ThemeContext } from "./contexts/ThemeContext.js";
import type { TypedKey } from "./hooks/useKeypress.js";
import { useTerminalSize } from "./hooks/useTerminalSize.js";
import { themeFor } from "./theme.js";

type Frame = ComponentType<{ glance: TriageGlance; columns: number; rows: number }>;

/**
 * The workbench's first frames, drawn before the workbench's own modules are loaded (a
 * bare Ink frame): a progress line, then, when triage as last computed is still what triage
 * would compute (core/app/glance.ts, read from the index's head alone), the Triage screen
 * from it; then the workbench, which shows the same until the workspace is read. Keys typed
 * meanwhile are kept and handed to the workbench in order.
 */
export function Boot(props: AppProps): ReactNode {
  const [App, setApp] = useState<ComponentType<AppProps> | undefined>(undefined);
  // undefined while it is looked up; null: none
  const [glance, setGlance] = useState<{ glance: TriageGlance; Frame: Frame } | null>();
  const typed = useRef<TypedKey[]>([]);
  const size = useTerminalSize(props.size);
  useEffect(() => {
    let live = true;
    void Promise.all([
      import("../core/app/glance.js").then((m) => m.workspaceGlance(props.dir)),
      import("./components/GlanceFrame.js"),
    ]).then(
      ([g, m]) => live && setGlance(g ? { glance: g, Frame: m.GlanceFrame } : null),
      () => live && setGlance(null),
    );
    return () => {
      live = false;
    };
  }, [props.dir]);
  // the workbench's modules load once the glance (if any) was drawn
  const looked = glance !== undefined;
  useEffect(() => {
    if (!looked) return;
    let live = true;
    void import("./App.js").then((m) => {
      if (live) setApp(() => m.App);
    });
    return () => {
      live = false;
    };
  }, [looked]);
  // Ctrl-C quits from anywhere (text fields included); q only until the workbench,
  // which has its own q, is up; other keys wait for it.
  useInput((input, key) => {
    if ((key.ctrl && input === "c") || (!App && input === "q")) props.onQuit?.();
    else if (!App) typed.current.push([input, key]);
  });
  if (App)
    return (
      <App
        {...props}
        {...(glance ? { glance: glance.glance } : {})}
        {...(typed.current.length ? { typed: typed.current } : {})}
      />
    );
  if (glance)
    return (
      <ThemeContext.Provider value={props.theme ?? themeFor()}>
        <glance.Frame glance={glance.glance} columns={size.columns} rows={size.rows} />
      </ThemeContext.Provider>
    );
  return <Text>fire · reading workspace {props.dir} …</Text>;
}
