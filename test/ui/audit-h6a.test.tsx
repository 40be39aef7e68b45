import { describe, it } from "vitest";
import { demoCopiesPerTest, KEY, renderApp } from "./helpers.js";

// Defects found driving the built workbench in tmux (issue 13 audit); one test each.
const { workspace } = demoCopiesPerTest();

describe("issue 13 audit: what a user hit in a real terminal", () => {
  it("Esc from an attempt opened via a searched task returns to that task's attempt list", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 30 });
    await app.see("95 attempts");
    await app.press("/");
    await app.see("type to search");
    await app.press(..."t2-add-tests-normalizer".split(""));
    await app.see("▸ task      clawbench/t2-add-tests-normalizer");
    await app.press(KEY.enter);
    await app.see("▸ ○ clawbench/t2-add-tests-normalizer");
    await app.press(KEY.enter);
    await app.see("clawbench/t2-add-tests-normalizer · baseline · 0/1");
    await app.press(KEY.enter);
    await app.see(
      "t2-add-tests-normalizer__BPeAoa2-a31ba05e · clawbench/t2-add-tests-normalizer · fail",
    );
    await app.press(KEY.esc);
    // back where the attempt was opened from: the task's attempt list, not the task table
    await app.see("clawbench/t2-add-tests-normalizer · baseline · 0/1", "▸ fail");
    app.unmount();
  });
});
