import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/core/model/attempt.js";
import { initState, step } from "../../../src/core/policy/evaluator.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const { policies } = loadPolicies([resolve(REPO_ROOT, "candidates/reference")]);
const limits = new Map(
  policies.flatMap((p) =>
    Object.values(p.rules)
      .flat()
      .map((r) => [`${p.id}/${r.id}`, r.limit] as const),
  ),
);

const TASKS = [
  "Recover the rows of the corrupted SQLite database and keep the server running after you finish.",
  "Replace every tab with spaces; the binary must give byte-for-byte identical output.",
  "Write all valid answers, one per line. Count the tokens of both the question and answer fields.",
];
const COMMANDS = [
  "sqlite3 a.db .tables",
  "cp -a /srv/db /bk",
  "python3 -m http.server 8080 &",
  "setsid nohup python3 app.py > log 2>&1 < /dev/null &",
  "curl -s localhost:8080/",
  "sed -i 's/a/b/' f.txt",
  "diff a b",
  "pdflatex x.tex",
  "rm -rf /var/www/html",
  "./prog < in",
];

const eventArb: fc.Arbitrary<Omit<Event, "index">> = fc.oneof(
  fc
    .constantFrom(...TASKS)
    .map((t) => ({ kind: "prompt" as const, role: "user" as const, input: t })),
  fc
    .constantFrom(...COMMANDS)
    .map((c) => ({ kind: "tool_call" as const, tool: "Bash", command: c })),
  fc
    .tuple(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 2 }))
    .map(([o, x]) => ({ kind: "tool_result" as const, tool: "Bash", output: o, exitCode: x })),
  fc.constant({ kind: "stop" as const }),
);

describe("step over random traces of the reference portfolio", () => {
  it("never mutates its input, round-trips through JSON, respects nudge limits, and a deny verdict means a deny firing", () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), (specs) => {
        let s = initState();
        const fired = new Map<string, number>();
        for (const [index, spec] of specs.entries()) {
          const e = { index, ...spec } as Event;
          const snap = JSON.stringify(s);
          const r = step(policies, s, e);
          expect(JSON.stringify(s)).toBe(snap);
          expect(step(policies, JSON.parse(snap), e)).toEqual(r);
          for (const f of r.firings) {
            const k = `${f.policyId}/${f.ruleId}`;
            fired.set(k, (fired.get(k) ?? 0) + 1);
            expect(fired.get(k)).toBeLessThanOrEqual(limits.get(k)!);
          }
          expect(r.verdict.action === "deny").toBe(r.firings.some((f) => f.action === "deny"));
          expect(r.state.step).toBe(index + 1);
          s = r.state;
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
