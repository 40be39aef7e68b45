import type { AttemptScript, Planted, ScriptStep } from "./types.js";

/** Builds an AttemptScript step by step, remembering marked steps by index. */
export class Script {
  readonly steps: ScriptStep[] = [];
  private pre: number | null = null;
  private ev: number | null = null;

  run(say: string, cmd: string, out: string, exit = 0, secs = 1): this {
    this.steps.push({ say, cmd, out, exit, secs });
    return this;
  }

  /** Mark the last step as capability evidence. */
  evidence(): this {
    this.ev = this.steps.length - 1;
    return this;
  }

  /** Mark the last step as the pre-failure state. */
  preFailure(): this {
    this.pre = this.steps.length - 1;
    return this;
  }

  pass(final: string, verifierStdout: string): AttemptScript {
    return this.done(final, true, 1, verifierStdout, null, false);
  }

  fail(final: string, verifierStdout: string, planted: Planted, reward = 0): AttemptScript {
    return this.done(final, false, reward, verifierStdout, planted, true);
  }

  private done(
    final: string,
    pass: boolean,
    reward: number,
    verifierStdout: string,
    planted: Planted,
    keepPre: boolean,
  ): AttemptScript {
    return {
      steps: this.steps,
      final,
      pass,
      reward,
      verifierStdout,
      planted,
      preFailure: keepPre ? this.pre : null,
      evidence: this.ev,
    };
  }
}

/** pytest-style verifier output for a list of (test name, passed) pairs. */
export function pytestOutput(file: string, tests: [string, boolean][], failDetail = ""): string {
  const passed = tests.filter(([, ok]) => ok).length;
  const failed = tests.length - passed;
  const lines = [
    "============================= test session starts ==============================",
    "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0",
    "rootdir: /tests",
    `collected ${tests.length} items`,
    "",
    `${file} ${tests.map(([, ok]) => (ok ? "." : "F")).join("")}`,
    "",
  ];
  if (failed > 0) {
    lines.push("=================================== FAILURES ===================================");
    for (const [name, ok] of tests) {
      if (ok) continue;
      lines.push(`_________________________________ ${name} _________________________________`);
      if (failDetail) lines.push(failDetail);
    }
    lines.push("=========================== short test summary info ============================");
    for (const [name, ok] of tests) if (!ok) lines.push(`FAILED ${file}::${name}`);
  }
  const summary =
    failed > 0 ? `${failed} failed, ${passed} passed in 0.84s` : `${passed} passed in 0.61s`;
  lines.push(`========================= ${summary} =========================`);
  return `${lines.join("\n")}\n`;
}
