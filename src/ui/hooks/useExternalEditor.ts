import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useStdin, useStdout } from "ink";

/** Opens text in the user's editor; resolves to the text as saved, undefined on failure. */
export type OpenInEditor = (text: string, name: string) => { text?: string; error?: string };

/**
 * `$VISUAL` / `$EDITOR` (else `vi`) on a temp copy of the text, with the terminal handed over
 * (raw mode off) and the screen cleared for a full redraw on return.
 */
export function useExternalEditor(): OpenInEditor {
  const { setRawMode, isRawModeSupported } = useStdin();
  const { stdout } = useStdout();
  return (text, name) => {
    const editor = process.env.VISUAL || process.env.EDITOR || "vi";
    const dir = mkdtempSync(join(tmpdir(), "fire-edit-"));
    const file = join(dir, name.replace(/[^\w.-]+/g, "_") || "text.txt");
    try {
      writeFileSync(file, text);
      if (isRawModeSupported) setRawMode(false);
      // $EDITOR may carry arguments (`code -w`): the shell splits it, the file stays one word.
      const r = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
      if (r.error) return { error: `${editor}: ${r.error.message}` };
      if (r.status !== 0) return { error: `${editor} exited with ${r.status ?? r.signal}` };
      return { text: readFileSync(file, "utf8") };
    } finally {
      if (isRawModeSupported) setRawMode(true);
      if (stdout.isTTY) stdout.write("\u001B[2J\u001B[H");
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
