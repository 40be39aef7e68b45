import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { launchInstruction } from "../../../src/core/ingest/launch-instruction.js";
import { taskOf } from "../../../src/core/ingest/openhands.js";
import { issueOf } from "../../../src/core/ingest/swe-agent.js";
import { taggedText } from "../../../src/core/ingest/tagged.js";
import { parseAnswer } from "../../../src/llm/schema.js";

/*
 * Texts a trace or a model can hold that sent a backtracking pattern down its worst path
 * (a tag that never closes after a long run of white space; a long run of options). Each
 * reading must still answer, with what the text says: these assert the answers.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("readings of text that opens and never closes", () => {
  it("takes a tagged issue only when its tag closes, earliest opening first", () => {
    expect(taggedText("x <pr_description>\n  fix it \n</pr_description>", ["pr_description"])).toBe(
      "fix it",
    );
    expect(
      taggedText("<issue_description>b</issue_description><pr_description>a</pr_description>", [
        "pr_description",
        "issue_description",
      ]),
    ).toBe("b");
    // the first opening never closes: the next tag that does
    expect(
      taggedText("<pr_description> open<issue_description>b</issue_description>", [
        "pr_description",
        "issue_description",
      ]),
    ).toBe("b");
    const open = `<pr_description>${" ".repeat(20_000)}x`;
    expect(taggedText(open, ["pr_description"])).toBeUndefined();
    expect(issueOf(open)).toBe(open.trim());
    expect(taskOf(open)).toBe(open.trim());
    expect(issueOf("<pr_description>\n  fix the parser\n</pr_description>")).toBe("fix the parser");
    // SWE-agent's older template: the issue between `ISSUE:` and an `INSTRUCTIONS:` line
    expect(issueOf("ISSUE:\nfix the parser\n\n  INSTRUCTIONS: \nnow edit")).toBe("fix the parser");
    expect(issueOf("ISSUE:\nsee INSTRUCTIONS: inline\nINSTRUCTION:\nnow")).toBe(
      "see INSTRUCTIONS: inline",
    );
    expect(issueOf(`ISSUE:\n${"\n".repeat(20_000)}fix it`)).toBe("fix it");
  });

  it("reads a model answer whose fence never closes as no JSON, and a fenced one as JSON", () => {
    const schema = z.object({ a: z.number() });
    expect(parseAnswer(schema, '```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAnswer(schema, '```\n{"a": 2}```')).toEqual({ ok: true, value: { a: 2 } });
    const r = parseAnswer(schema, `\`\`\`${" \n".repeat(20_000)}n`);
    expect(r.ok).toBe(false);
  });

  it("finds a launch command's quoted instruction after many options, and none without a quote", () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-hostile-"));
    dirs.push(dir);
    mkdirSync(join(dir, "agent", "command-0"), { recursive: true });
    const opts = " --format=json".repeat(40);
    const said = "Fix the failing test in the parser module and run the suite again.";
    writeFileSync(
      join(dir, "agent", "command-0", "command.txt"),
      `opencode run${opts} --model x\nopencode run${opts} '${said}'\n`,
    );
    expect(launchInstruction(dir)).toBe(said);
  });
});
