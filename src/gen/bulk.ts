import type { Rng } from "./prng.js";
import type { AttemptScript, ScriptStep } from "./types.js";

const LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"] as const;
const WORDS = [
  "request",
  "cache",
  "worker",
  "retry",
  "flush",
  "commit",
  "index",
  "session",
  "batch",
  "shard",
  "lease",
  "queue",
];

function logLines(rng: Rng, n: number): string {
  const out: string[] = [];
  let t = rng.int(0, 86_000);
  for (let i = 0; i < n; i++) {
    t += rng.int(0, 4);
    const hh = String(Math.floor(t / 3600) % 24).padStart(2, "0");
    const mm = String(Math.floor(t / 60) % 60).padStart(2, "0");
    const ss = String(t % 60).padStart(2, "0");
    out.push(
      `2026-10-12 ${hh}:${mm}:${ss},${String(rng.int(0, 999)).padStart(3, "0")} ${rng.pick(LEVELS)} ${rng.pick(WORDS)}.${rng.pick(WORDS)} id=${rng.hex(8)} took=${rng.int(1, 900)}ms`,
    );
  }
  return out.join("\n");
}

function fileList(rng: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(`/app/${rng.pick(WORDS)}/${rng.pick(WORDS)}_${rng.hex(4)}.py`);
  return out.join("\n");
}

/** Exploratory steps with realistic, sizeable outputs (logs, listings) for benchmark corpora. */
export function bulkSteps(rng: Rng, count: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < count; i++) {
    const n = rng.int(20, 160);
    if (rng.chance(0.6)) {
      steps.push({
        say: "Look at the recent log output.",
        cmd: `tail -n ${n} /var/log/app/service.log`,
        out: logLines(rng, n),
        exit: 0,
        secs: 0.2,
      });
    } else {
      steps.push({
        say: "List the source files.",
        cmd: `find /app -name '*.py' | head -n ${n}`,
        out: fileList(rng, n),
        exit: 0,
        secs: 0.3,
      });
    }
  }
  return steps;
}

const ORIENTATION: readonly [string, string, string][] = [
  [
    "Get oriented in the container.",
    "ls -la /app | head -12",
    "total 28\ndrwxr-xr-x 1 root root 4096 Oct 12 07:58 .\ndrwxr-xr-x 1 root root 4096 Oct 12 07:58 ..\ndrwxr-xr-x 2 root root 4096 Oct 12 07:58 tests",
  ],
  [
    "Check the tool versions available.",
    "python3 --version && git --version",
    "Python 3.12.3\ngit version 2.43.0",
  ],
  [
    "See which OS image this is.",
    "head -2 /etc/os-release",
    'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"',
  ],
  ["Check who and where I am.", "pwd && whoami", "/app\nroot"],
  [
    "Look for a README or notes.",
    "ls /app/*.md 2>/dev/null || echo 'no markdown files'",
    "no markdown files",
  ],
];

/** Short orientation commands agents typically start with. */
export function orientationSteps(rng: Rng, count: number): ScriptStep[] {
  return rng
    .shuffle(ORIENTATION)
    .slice(0, count)
    .map(([say, cmd, out]) => ({ say, cmd, out, exit: 0, secs: 0.2 }));
}

/** The script with `extra` steps in front; marked indices shift accordingly. */
export function prependSteps(s: AttemptScript, extra: ScriptStep[]): AttemptScript {
  if (extra.length === 0 || s.steps.length === 0) return s;
  const shift = (i: number | null) => (i === null ? null : i + extra.length);
  return {
    ...s,
    steps: [...extra, ...s.steps],
    preFailure: shift(s.preFailure),
    evidence: shift(s.evidence),
  };
}

/** The script with `count` bulk steps in front (benchmark corpora). */
export function padScript(s: AttemptScript, rng: Rng, count: number): AttemptScript {
  return prependSteps(s, bulkSteps(rng, count));
}
