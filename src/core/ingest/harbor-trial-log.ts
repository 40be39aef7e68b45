import { join } from "node:path";
import { readSmall } from "./fs-util.js";

/** A here-document opener: `<< 'EOF'`, `<<-EOF`, `<< "EOF"`; group 1 is the delimiter. */
const HEREDOC = /<<-?\s*['"]?([A-Za-z_]\w{0,63})['"]?/;
/** What names a heredoc as the task text: its target file or its delimiter. */
const TASK_WORD = /instruction|prompt|task/i;
const MAX_TEXT = 64 * 1024;

/**
 * The task text an installed agent's harness wrote with a here-document, as Harbor's
 * `trial.log` records the command ("Running command: … cat > …/instruction.txt << 'EOF'" then
 * the text, then the delimiter alone on its line). Only a heredoc whose target file or
 * delimiter names an instruction, prompt or task counts; "" when there is none.
 */
export function instructionFromTrialLog(dir: string): string {
  const log = readSmall(join(dir, "trial.log"), 8 << 20);
  if (!log) return "";
  const lines = log.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = HEREDOC.exec(line);
    if (!m) continue;
    const delim = m[1]!;
    const target = line.slice(0, m.index);
    if (!TASK_WORD.test(delim) && !TASK_WORD.test(target.slice(target.lastIndexOf(">") + 1)))
      continue;
    const body: string[] = [];
    let size = 0;
    let closed = false;
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j]!.trim() === delim) {
        closed = true;
        break;
      }
      size += lines[j]!.length + 1;
      if (size > MAX_TEXT) break;
      body.push(lines[j]!);
    }
    const text = body.join("\n").trim();
    if (closed && text) return text;
  }
  return "";
}
