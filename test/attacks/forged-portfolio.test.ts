import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { manifestHashOf } from "../../src/core/freeze/verify.js";
import { sha256Hex } from "../../src/core/screening/canonical.js";
import { loadPortfolio } from "../../src/runtime/portfolio.js";
import { denyCandidate, writeFrozen } from "./helpers.js";

/**
 * Issue 27 point 11: a frozen portfolio forged with a backreference pattern and every hash
 * recomputed verifies byte for byte, so only re-admitting its patterns on load keeps the hook
 * from an exponential match (> 30 s on a 30-character command).
 */
const PLACEHOLDER = "^zzplaceholderzz$";
const EVIL = "^(a|a)*\\1b";

function forge(dir: string, files: string[]): void {
  const swap = (v: unknown): unknown =>
    v === PLACEHOLDER
      ? EVIL
      : Array.isArray(v)
        ? v.map(swap)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]))
          : v;
  const hashes = new Map<string, string>();
  for (const f of files) {
    const data = swap(JSON.parse(readFileSync(join(dir, f), "utf8"))) as Record<string, unknown>;
    // the forger drops the prefilter too, so the pattern always runs
    if (f === "hook.json") data.literals = {};
    const text = `${JSON.stringify(data)}\n`;
    writeFileSync(join(dir, f), text);
    hashes.set(f, sha256Hex(text));
  }
  const { manifestHash: _, ...body } = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  for (const p of [...body.policies, ...(body.hook ? [body.hook] : [])])
    p.sha256 = hashes.get(p.file) ?? p.sha256;
  const manifest = { ...body, manifestHash: manifestHashOf(body) };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

describe("attack 11: a forged frozen portfolio with recomputed hashes", () => {
  for (const hookForm of [true, false]) {
    it(`its backreference pattern is refused on load (${hookForm ? "hook form" : "policy files"})`, async () => {
      const ws = mkdtempSync(join(tmpdir(), "fire-attack-11-"));
      const dir = writeFrozen(join(ws, "p"), [denyCandidate("rm", PLACEHOLDER)], { hookForm });
      forge(dir, hookForm ? ["policies/rm@1.json", "hook.json"] : ["policies/rm@1.json"]);
      const t0 = Date.now();
      await expect(loadPortfolio(dir, join(ws, "state"))).rejects.toThrow(
        /frozen portfolio rejected: .*rm@1\.json.*linear time/,
      );
      expect(Date.now() - t0).toBeLessThan(5_000);
    });
  }

  it("an edited hook form alone (policies intact) is never what decides", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-11h-"));
    const dir = writeFrozen(join(ws, "p"), [denyCandidate("rm", PLACEHOLDER)], { hookForm: true });
    forge(dir, ["hook.json"]);
    const policies = await loadPortfolio(dir, join(ws, "state"));
    expect(JSON.stringify(policies.map((p) => p.candidate.rules))).not.toContain("\\\\1");
  });
});
