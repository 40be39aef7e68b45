/**
 * Terminal-Bench 1 session logs → commands. TB1 records the agent's tmux pane with
 * asciinema (`sessions/agent.cast`, v2: a header line, then `[t, "o"|"i", text]` rows) and
 * a plain copy (`sessions/agent.log`). Commands are the lines typed at a shell prompt
 * (`root@host:/app# cmd`); their output runs to the next prompt. Agents that run inside
 * the pane and print their own commands (fenced ```bash blocks followed by a
 * `<returncode>` / `<output>` observation, as mini-swe-agent does) are read from that output.
 */

export interface SessionCommand {
  command: string;
  output: string;
  exitCode?: number;
  /** "prompt": typed at the shell; "agent-log": printed by the agent in its own output. */
  via: "prompt" | "agent-log";
}

// ANSI / terminal control sequences: CSI, OSC, charset selection and single-char escapes.
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
const OTHER_ESC = /\x1b[()][A-Za-z0-9]|\x1b[=>NOM78cDEHZ]/g;

/** Terminal output as plain text: escapes dropped, CR overwrite and backspace applied. */
export function plainTerminalText(raw: string): string {
  const noEsc = raw.replace(OSC, "").replace(CSI, "").replace(OTHER_ESC, "");
  return noEsc
    .replace(/\r+\n/g, "\n")
    .split("\n")
    .map((line) => {
      let l = line.includes("\r")
        ? (line
            .split("\r")
            .filter((s) => s.length > 0)
            .at(-1) ?? "")
        : line;
      while (/[^\x08]\x08/.test(l)) l = l.replace(/[^\x08]\x08/g, "");
      return l.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
    })
    .join("\n");
}

export interface CastText {
  text: string;
  /** 1-based lines of the cast that were not `[time, code, text]` rows. */
  badLines: number[];
}

/** The output stream of an asciinema v2 recording (`"o"` rows), as plain text. */
export function castText(cast: string): CastText {
  const lines = cast.split("\n");
  const chunks: string[] = [];
  const badLines: number[] = [];
  lines.forEach((line, i) => {
    if (i === 0 || !line.trim()) return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      badLines.push(i + 1);
      return;
    }
    if (!Array.isArray(row) || typeof row[0] !== "number" || typeof row[2] !== "string") {
      badLines.push(i + 1);
      return;
    }
    if (row[1] === "o") chunks.push(row[2]);
  });
  return { text: plainTerminalText(chunks.join("")), badLines };
}

/** `user@host:dir# ` / `$ ` prompts as bash, sh and zsh print them in a container. */
const PROMPT = /^(?:\([^)\n]*\)\s*)?[\w.-]+@[\w.-]+:[^\n#$]*[#$] ?(.*)$/;
/** Harness plumbing TB1 types itself, not the agent's actions. */
const HARNESS = /^(?:asciinema rec\b.*|clear|exit|tmux wait -S done)$/;

function cleanCommand(cmd: string): string {
  return cmd.replace(/;\s*tmux wait -S done\s*$/, "").replace(/\s+$/, "");
}

/** Commands typed at shell prompts, each with the output up to the next prompt. */
export function promptCommands(text: string): SessionCommand[] {
  const out: SessionCommand[] = [];
  let cur: { command: string; output: string[] } | undefined;
  const flush = () => {
    if (cur)
      out.push({ command: cur.command, output: cur.output.join("\n").trim(), via: "prompt" });
    cur = undefined;
  };
  for (const line of text.split("\n")) {
    const m = PROMPT.exec(line);
    if (m) {
      flush();
      const cmd = cleanCommand(m[1] ?? "");
      if (cmd && !HARNESS.test(cmd)) cur = { command: cmd, output: [] };
    } else if (cur && cur.output.length === 0 && line.startsWith("> ")) {
      cur.command += `\n${line.slice(2)}`; // a continuation line (heredoc, open quote)
    } else if (cur) cur.output.push(line);
  }
  flush();
  return out;
}

const FENCE = /```(?:bash|sh|shell|console|zsh)?[ \t]*\n([\s\S]*?)\n```/g;
const RETURNCODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OBS_OUTPUT = /<output>\n?([\s\S]*?)\n?<\/output>/;

/**
 * Commands an agent printed in its own output: a fenced shell block, then (before the next
 * block) the observation with `<returncode>` and `<output>`. Blocks without an observation
 * are not counted: the agent only quoted a command.
 */
export function agentPrintedCommands(text: string): SessionCommand[] {
  const out: SessionCommand[] = [];
  const blocks = [...text.matchAll(FENCE)];
  blocks.forEach((b, i) => {
    const start = (b.index ?? 0) + b[0].length;
    const end = blocks[i + 1]?.index ?? text.length;
    const obs = text.slice(start, end);
    const rc = RETURNCODE.exec(obs);
    const cmd = (b[1] ?? "").trim();
    if (!rc || !cmd) return;
    out.push({
      command: cmd,
      output: (OBS_OUTPUT.exec(obs)?.[1] ?? "").trim(),
      exitCode: Number(rc[1]),
      via: "agent-log",
    });
  });
  return out;
}

/** Every command of a session: prompt commands, each followed by the ones its agent printed. */
export function sessionCommands(text: string): SessionCommand[] {
  const out: SessionCommand[] = [];
  for (const c of promptCommands(text)) {
    const inner = agentPrintedCommands(c.output);
    if (inner.length === 0) out.push(c);
    else {
      out.push({ ...c, output: `[${inner.length} command(s) the agent printed follow]` });
      out.push(...inner);
    }
  }
  return out;
}
