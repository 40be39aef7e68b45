import { createContext, useContext } from "react";

/** Quits the workbench (the shell's `q`), for a screen that must ask first (unsaved edits). */
export const QuitContext = createContext<(() => void) | undefined>(undefined);

export function useQuit(): () => void {
  const quit = useContext(QuitContext);
  return quit ?? (() => {});
}
