import { Text } from "ink";
import { render } from "ink-testing-library";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { KeypressProvider, useHoldKeys, useKeypress } from "../../src/ui/hooks/useKeypress.js";
import { typeKeys, waitFor } from "./helpers.js";

/** A screen still loading holds the keys; once `open`, it lets them through. */
function Loading({ open }: { open: boolean }) {
  useHoldKeys(!open);
  return <Text>{open ? "open" : "loading"}</Text>;
}

function Log({ seen }: { seen: string[] }) {
  const [n, setN] = useState(0);
  useKeypress((input) => {
    seen.push(input);
    setN((x) => x + 1);
    return true;
  });
  return <Text>{`keys ${n}`}</Text>;
}

describe("keys held while a screen loads", () => {
  it("are handled in the order typed once the hold ends, none lost", async () => {
    const seen: string[] = [];
    const tree = (open: boolean) => (
      <KeypressProvider>
        <Loading open={open} />
        <Log seen={seen} />
      </KeypressProvider>
    );
    const r = render(tree(false));
    await waitFor(() => (r.lastFrame() ?? "").includes("loading"), r.lastFrame);
    // typeKeys returns once React and the provider handled each write (a key not held is
    // handled at its write, a burst's rest in the next task), so nothing seen means held
    await typeKeys(r.stdin, "a", "bc");
    expect(seen).toEqual([]); // held
    expect(r.lastFrame()).toContain("keys 0");
    r.rerender(tree(true));
    await waitFor(() => (r.lastFrame() ?? "").includes("keys 3"), r.lastFrame);
    expect(seen).toEqual(["a", "b", "c"]);
    r.stdin.write("d"); // no hold: at once
    await waitFor(() => (r.lastFrame() ?? "").includes("keys 4"), r.lastFrame);
    expect(seen).toEqual(["a", "b", "c", "d"]);
    r.unmount();
  });
});
