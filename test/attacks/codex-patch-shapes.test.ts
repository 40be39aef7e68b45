import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HookInput } from "../../src/runtime/hook-input.js";
import { toEvent } from "../../src/runtime/map-event.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Issue 27 point 15: apply_patch shapes Codex accepts must name the paths they write, or a
 * write deny is skipped. What Codex CLI 0.171 accepts was checked by running its own
 * apply_patch (the `codex` binary called as `apply_patch`) on each shape: a header indented by
 * spaces or a tab, a tab before the path, and whitespace after it all delete or add the file.
 */
const recorded = readFileSync(
  join(REPO_ROOT, "test/fixtures/real-clients/codex-apply-patch/hook-events.jsonl"),
  "utf8",
)
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l).input as HookInput)
  .find((e) => e.hook_event_name === "PreToolUse" && e.tool_name === "apply_patch");

function writes(tool: string, command: string): string[] | undefined {
  if (!recorded) throw new Error("fixture has no apply_patch PreToolUse");
  return toEvent({ ...recorded, tool_name: tool, tool_input: { command } })?.writes;
}

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

describe("attack 15: Codex apply_patch shapes yield their written paths", () => {
  it("a header indented by a space or a tab", () => {
    expect(writes("apply_patch", patch(" *** Delete File: deploy.sh"))).toEqual(["deploy.sh"]);
    expect(writes("apply_patch", patch("\t*** Delete File: deploy.sh"))).toEqual(["deploy.sh"]);
  });

  it("a tab after the header, or after the path", () => {
    expect(writes("apply_patch", patch("*** Delete File: \tdeploy.sh"))).toEqual(["deploy.sh"]);
    expect(writes("apply_patch", patch("*** Delete File:\tdeploy.sh"))).toEqual(["deploy.sh"]);
    expect(writes("apply_patch", patch("*** Add File: a.txt\t", "+x"))).toEqual(["a.txt"]);
  });

  it("CRLF line ends and a moved file's both paths", () => {
    const crlf = patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-x", "+y");
    expect(writes("apply_patch", crlf.replaceAll("\n", "\r\n"))).toEqual(["a.txt", "b.txt"]);
  });

  it("an apply_patch heredoc run from the shell (bare, after cd, or as applypatch)", () => {
    const body = patch("*** Delete File: deploy.sh");
    expect(writes("Bash", `apply_patch <<'EOF'\n${body}\nEOF`)).toEqual(["deploy.sh"]);
    expect(writes("Bash", `cd app && apply_patch <<"EOF"\n${body}\nEOF\n`)).toEqual(["deploy.sh"]);
    expect(writes("Bash", `applypatch <<EOF\n${body}\nEOF`)).toEqual(["deploy.sh"]);
    expect(writes("Bash", `apply_patch '${body}'`)).toEqual(["deploy.sh"]);
  });

  it("a shell command that only mentions a header, without apply_patch, writes nothing", () => {
    expect(writes("Bash", `echo '${patch("*** Delete File: deploy.sh")}'`)).toBeUndefined();
    expect(writes("Bash", "grep -r apply_patch_notes .")).toBeUndefined();
  });
});
