import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  codexHookHash,
  eventKeyLabel,
  readCodexTrust,
  trustEntries,
  writeCodexTrust,
} from "../../../src/core/deploy/codex-trust.js";
import { InputError } from "../../../src/core/errors.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const temp = () => mkdtempSync(join(tmpdir(), "fire-codex-trust-"));

describe("Codex persisted hook trust", () => {
  it("computes the hashes the real Codex CLI 0.171.0 accepted (hooks ran without a bypass flag)", () => {
    // Codex's own hashes for one handler, recorded with the real client (the fixture's README)
    const { handler, accepted } = JSON.parse(
      readFileSync(
        join(REPO_ROOT, "test/fixtures/real-clients/codex-trust/accepted-hashes.json"),
        "utf8",
      ),
    );
    expect(codexHookHash("PreToolUse", accepted.PreToolUse.matcher, handler)).toBe(
      accepted.PreToolUse.hash,
    );
    // prompt and stop events leave their matcher out of the identity
    expect(codexHookHash("UserPromptSubmit", undefined, handler)).toBe(
      accepted.UserPromptSubmit.hash,
    );
    expect(codexHookHash("UserPromptSubmit", "anything", handler)).toBe(
      codexHookHash("UserPromptSubmit", undefined, handler),
    );
    expect(codexHookHash("PreToolUse", "Bash", handler)).not.toBe(
      codexHookHash("PreToolUse", "", handler),
    );
    expect(eventKeyLabel("PostToolUse")).toBe("post_tool_use");
  });

  it("keys each handler by file, event, group and handler index", () => {
    const settings = {
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "mine.sh" }] },
          { matcher: "", hooks: [{ type: "command", command: "fire # fire-hook", timeout: 30 }] },
        ],
      },
    };
    const entries = trustEntries("/h/hooks.json", settings, (c) => c.endsWith("# fire-hook"));
    expect(entries.map((e) => e.key)).toEqual(["/h/hooks.json:pre_tool_use:1:0"]);
  });

  it("writes and removes only fire's block, keeping the user's config.toml", () => {
    const dir = temp();
    const file = join(dir, "config.toml");
    const user = 'model = "gpt-5"\n\n[features]\nplugins = false\n';
    writeFileSync(file, user);
    const entries = [{ key: "/h/hooks.json:stop:0:0", hash: "sha256:abc" }];
    const t = writeCodexTrust(file, "/h/hooks.json", entries, { dir: "/p", trust: true });
    expect(t.changed).toBe(true);
    const read = readCodexTrust(file);
    expect(read.state).toEqual({ "/h/hooks.json:stop:0:0": "sha256:abc" });
    expect([...read.trustedProjects]).toEqual(["/p"]);
    expect(readFileSync(file, "utf8").startsWith(user)).toBe(true);
    // idempotent
    expect(
      writeCodexTrust(file, "/h/hooks.json", entries, { dir: "/p", trust: true }).changed,
    ).toBe(false);
    writeCodexTrust(file, "/h/hooks.json", [], { dir: "/p", trust: false });
    expect(readFileSync(file, "utf8")).toBe(user);
  });

  it("refuses a config.toml that is not TOML, or that trusts the same key itself", () => {
    const dir = temp();
    const file = join(dir, "config.toml");
    writeFileSync(file, "model = \n");
    expect(() => writeCodexTrust(file, "/h", [{ key: "k", hash: "h" }])).toThrow(InputError);
    writeFileSync(file, '[hooks.state."k"]\ntrusted_hash = "x"\n');
    expect(() => writeCodexTrust(file, "/h", [{ key: "k", hash: "h" }])).toThrow(/already has/);
    expect(readFileSync(file, "utf8")).toBe('[hooks.state."k"]\ntrusted_hash = "x"\n');
  });

  it("reads a [features] hooks = false that turns every hook off", () => {
    const file = join(temp(), "config.toml");
    writeFileSync(file, "[features]\nhooks = false\n");
    expect(readCodexTrust(file).hooksFeature).toBe(false);
  });
});
