import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoCopiesPerTest, renderApp } from "./helpers.js";

/**
 * Issue 13, point 6 ("two versions of one candidate look identical (`…e9a890@`)"): the
 * Candidates list sizes its columns from the width, and an id too long for its column keeps
 * both ends (middle ellipsis), so two versions of one long id stay apart at any width.
 */
const { withDraft } = demoCopiesPerTest();
const LONG = "draft-service-persistence-d667171ad0e9a890";

/** Two versions of one candidate with a long id: v1 screening, v2 a draft superseding it. */
function twoVersions(): string {
  const { dir, draft } = withDraft();
  const text = readFileSync(draft, "utf8").replace("id: my-serve", `id: ${LONG}`);
  writeFileSync(
    join(dir, "candidates/drafts/long-v1.yaml"),
    text.replace("status: draft", "status: screening"),
  );
  writeFileSync(
    join(dir, "candidates/drafts/long-v2.yaml"),
    `${text.replace("version: 1", "version: 2")}lineage:\n  supersedes: ${LONG}@1\n`,
  );
  return dir;
}

const rowsNaming = (frame: string, text: string) =>
  frame.split("\n").filter((l) => l.includes(text) && !l.startsWith("candidates/"));

describe("Candidates list layout", () => {
  for (const columns of [120, 60, 40]) {
    it(`two versions of one long id stay apart at ${columns} columns, status kept`, async () => {
      const app = renderApp(twoVersions(), { columns, rows: 24 });
      await app.see("k/n"); // the Triage list (at 40 columns the header is compact)
      await app.press("4");
      await app.see("screening", "draft-se");
      const rows = rowsNaming(app.frame(), "draft-se");
      expect(rows).toHaveLength(2);
      expect(
        app
          .frame()
          .split("\n")
          .every((l) => [...l].length <= columns),
      ).toBe(true);
      // each row shows its status and its own version; the id keeps its head and its tail
      const byVersion = (v: number) =>
        rows.filter((l) => new RegExp(`a890@${v}\\b|…\\S*@${v}\\b`).test(l));
      expect(byVersion(1)).toHaveLength(1);
      expect(byVersion(2)).toHaveLength(1);
      expect(byVersion(1)[0]).toMatch(/screening/);
      expect(byVersion(2)[0]).toMatch(/draft/);
      for (const r of rows) expect(r).toMatch(/draft-se\S*(…\S*)?@\d/);
      if (columns >= 60) for (const r of rows) expect(r).toContain("a890@");
      app.unmount();
    });
  }
});
