import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { openWorkspace } from "../../src/core/workspace/open.js";
import { Boot } from "../../src/ui/Boot.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp, waitFor } from "./helpers.js";

const { workspace } = demoCopiesPerTest();

function renderBoot(dir: string) {
  let quits = 0;
  const r = render(
    <Boot
      dir={dir}
      size={{ columns: 100, rows: 24 }}
      theme={themeFor({ NO_COLOR: "1" })}
      onQuit={() => {
        quits++;
      }}
    />,
  );
  const frame = () => r.lastFrame() ?? "";
  return { ...r, frame, quits: () => quits };
}

describe("opening the workbench", () => {
  it("the first frame is a progress line, before the workbench has loaded", async () => {
    const dir = workspace();
    const app = renderBoot(dir);
    expect(app.frame()).toContain(`reading workspace ${dir}`);
    await waitFor(() => app.frame().includes(DEMO_ATTEMPTS), app.frame);
    app.unmount();
  });

  it("Ctrl-C quits during the first read, and from a text field", async () => {
    const early = renderBoot(workspace());
    early.stdin.write("\u0003");
    await waitFor(() => early.quits() === 1, early.frame);
    early.unmount();

    const app = renderBoot(workspace());
    await waitFor(() => app.frame().includes(DEMO_ATTEMPTS), app.frame);
    app.stdin.write("/");
    await waitFor(() => app.frame().includes("type to search"), app.frame);
    app.stdin.write("q"); // a letter for the search box, not a quit
    await waitFor(() => app.frame().includes("“q”"), app.frame);
    expect(app.quits()).toBe(0);
    app.stdin.write("\u0003");
    await waitFor(() => app.quits() === 1, app.frame);
    app.unmount();
  });

  it("Esc during the first read cancels it, and r reads it again", async () => {
    const dir = workspace();
    const app = renderApp(dir, { columns: 100, rows: 24 });
    await app.see("reading workspace");
    await app.press(KEY.esc);
    await app.see("reading workspace: cancelled · r reads it again");
    expect(app.frame()).not.toContain(DEMO_ATTEMPTS);
    await app.press("r");
    await app.see(DEMO_ATTEMPTS);
    app.unmount();
  });

  it("a warm open reads the index: the same header, and events when an attempt is opened", async () => {
    const dir = workspace();
    const cold = renderApp(dir, { columns: 120, rows: 30 });
    await cold.see(DEMO_ATTEMPTS);
    const header = cold.frame().split("\n")[0];
    cold.unmount();
    const warm = await openWorkspace(dir);
    expect(warm.index).toBeDefined(); // the cold read wrote it

    const app = renderApp(dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    expect(app.frame().split("\n")[0]).toBe(header);
    await app.press("/");
    await app.see("type to search");
    await app.press(..."hAXff60".split(""));
    await app.see("serve-static-docs__hAXff60");
    await app.press(KEY.enter);
    await app.see("serve-static-docs__hAXff60-0103688c · serve-static-docs · fail", "tool_call");
    app.unmount();
  });
});
