import { useInput } from "ink";
import { type ComponentType, type ReactNode, useEffect, useState } from "react";
import type { AppProps } from "./App.js";
import { Text } from "./components/Text.js";

/**
 * The workbench's first frame: a progress line drawn before the workbench's own modules
 * are loaded (a bare Ink frame), then the workbench.
 */
export function Boot(props: AppProps): ReactNode {
  const [App, setApp] = useState<ComponentType<AppProps> | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void import("./App.js").then((m) => {
      if (live) setApp(() => m.App);
    });
    return () => {
      live = false;
    };
  }, []);
  // Ctrl-C quits from anywhere (text fields included); q only until the workbench,
  // which has its own q, is up.
  useInput((input, key) => {
    if ((key.ctrl && input === "c") || (!App && input === "q")) props.onQuit?.();
  });
  if (App) return <App {...props} />;
  return <Text>fire · reading workspace {props.dir} …</Text>;
}
