import { render } from "ink";
import { Boot } from "./Boot.js";

/**
 * Alternate screen on/off and a visible cursor: the shell gets its screen back as it was. The
 * alternate screen is cleared before it is left: tmux, after a resize during the session, puts
 * the alternate screen's rows above the prompt when it restores the shell's screen.
 */
const ENTER = "\x1b[?1049h";
const LEAVE = "\x1b[H\x1b[2J\x1b[?1049l\x1b[?25h";

/**
 * Opens the workbench on a workspace in the terminal (on the alternate screen) and ends
 * the process when the user quits with q or Ctrl-C: at once, whatever work is still in
 * flight, with the terminal restored and no last frame left above the prompt.
 * The CLI loads this module only when stdout is a terminal.
 */
export async function runWorkbench(dir: string): Promise<void> {
  const out = process.stdout;
  out.write(ENTER);
  let done = false;
  let instance: ReturnType<typeof render> | undefined;
  const quit = (): void => {
    if (done) return;
    done = true;
    instance?.unmount();
    out.write(LEAVE, () => process.exit(process.exitCode ?? 0));
  };
  process.once("SIGINT", quit);
  process.once("SIGTERM", quit);
  instance = render(<Boot dir={dir} onQuit={quit} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  quit();
}
