import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/screening/canonical.js";
import { RACY_NS } from "../../src/runtime/verified-record.js";
import { logEntries } from "../runtime/hook-helpers.js";
import { denyCandidate, preToolUse, promptEvent, runHookChild, writeFrozen } from "./helpers.js";

/**
 * Issue 16 item 7: the compiled-portfolio cache is trusted without a check. A frozen
 * portfolio is now verified from its hashed bytes on every event; no cache decides its rules.
 */
describe("attack 7: an edited cache never changes a frozen portfolio's rules", () => {
  it("a forged portfolio cache in the (agent-writable) state folder is ignored", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-7-"));
    const frozen = writeFrozen(join(ws, "portfolios/p"), [denyCandidate("rm", "\\brm\\s+-rf\\b")]);
    const args = ["--portfolio", frozen, "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("s7")), { cwd: ws });
    // The agent plants "caches" that would allow rm -rf (a rule that never matches).
    const harmless = { ...denyCandidate("rm", "^never$") };
    const cacheDir = join(ws, ".fire/state/portfolio-cache");
    mkdirSync(cacheDir, { recursive: true });
    const forged = JSON.stringify({ key: "x", policies: [{ candidate: harmless }] });
    for (const name of [...readdirSync(cacheDir), "00000000.json", "forged.json"])
      writeFileSync(join(cacheDir, name), forged);
    const r = await runHookChild(args, JSON.stringify(preToolUse("s7", "rm -rf /")), { cwd: ws });
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  }, 60_000);

  it("an edited frozen policy is rejected (fault named, fail open) even after a warm run", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-7e-"));
    const frozen = writeFrozen(join(ws, "portfolios/p"), [denyCandidate("rm", "\\brm\\s+-rf\\b")]);
    const args = ["--portfolio", frozen, "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("s7e")), { cwd: ws });
    writeFileSync(
      join(frozen, "policies/rm@1.json"),
      `${canonicalJson(denyCandidate("rm", "^never$"))}\n`,
    );
    const r = await runHookChild(args, JSON.stringify(preToolUse("s7e", "rm -rf /")), { cwd: ws });
    expect(r.stdout).toBe("");
    expect(logEntries(ws).at(-1)?.error).toMatch(
      /frozen portfolio rejected: .*rm@1\.json.*SHA-256/,
    );
  }, 60_000);

  it("a frozen portfolio's hook form decides as its policies; an edited one is rejected", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-7h-"));
    const frozen = writeFrozen(join(ws, "portfolios/p"), [denyCandidate("rm", "\\brm\\s+-rf\\b")], {
      hookForm: true,
    });
    const args = ["--portfolio", frozen, "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("s7h")), { cwd: ws });
    const denied = await runHookChild(args, JSON.stringify(preToolUse("s7h", "rm -rf /")), {
      cwd: ws,
    });
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    // the agent rewrites the hook form to a rule that never matches: the hash catches it
    const form = JSON.parse(readFileSync(join(frozen, "hook.json"), "utf8"));
    form.policies[0].candidate.rules[0].when.command = "^never$";
    writeFileSync(join(frozen, "hook.json"), `${JSON.stringify(form)}\n`);
    const r = await runHookChild(args, JSON.stringify(preToolUse("s7h", "rm -rf /")), { cwd: ws });
    expect(r.stdout).toBe("");
    expect(logEntries(ws).at(-1)?.error).toMatch(
      /frozen portfolio rejected: .*hook\.json.*SHA-256/,
    );
  }, 60_000);

  it("an edit after the verification was recorded is caught, though size and mtime are restored", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-7r-"));
    const frozen = writeFrozen(join(ws, "portfolios/p"), [denyCandidate("rm", "\\brm\\s+-rf\\b")], {
      hookForm: true,
    });
    const records = join(ws, "user-state");
    const opts = { cwd: ws, env: { FIRE_VERIFIED_DIR: records } };
    const args = ["--portfolio", frozen, "--workspace", ws];
    // installed before the session: its files are past the racy window, so this is recorded
    const written = statSync(join(frozen, "hook.json")).ctimeMs;
    await until(() => Date.now() > written + Number(RACY_NS / 1_000_000n) + 100);
    await runHookChild(args, JSON.stringify(promptEvent("s7r")), opts);
    expect(readdirSync(records)).toHaveLength(1);
    const denied = await runHookChild(args, JSON.stringify(preToolUse("s7r", "rm -rf /")), opts);
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    // the agent flips the rule in place and puts size and mtime back (touch -r)
    const file = join(frozen, "hook.json");
    execFileSync("touch", ["-r", file, `${file}.times`]);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("rm\\\\s+-rf", "rm\\\\s+-rX"));
    execFileSync("touch", ["-r", `${file}.times`, file]);
    expect(readFileSync(file, "utf8")).not.toBe(text);
    const r = await runHookChild(args, JSON.stringify(preToolUse("s7r", "rm -rf /")), opts);
    expect(r.stdout).toBe("");
    expect(logEntries(ws).at(-1)?.error).toMatch(
      /frozen portfolio rejected: .*hook\.json.*SHA-256/,
    );
  }, 60_000);
});

/** Resolves once `ok()` holds (polled every 50 ms). */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 50));
}
