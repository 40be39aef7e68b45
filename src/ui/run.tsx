import { render } from "ink";
import { App } from "./App.js";

/**
 * Opens the workbench on a workspace in the terminal and resolves when the user quits.
 * The CLI loads this module only when stdout is a terminal.
 */
export async function runWorkbench(dir: string): Promise<void> {
  let quit: () => void = () => undefined;
  const instance = render(<App dir={dir} onQuit={() => quit()} />, { exitOnCtrlC: true });
  quit = () => instance.unmount();
  await instance.waitUntilExit();
}
