import { Text } from "ink";
import { render } from "ink-testing-library";
import { useState } from "react";
import { unstable_NormalPriority, unstable_scheduleCallback } from "scheduler";
import { describe, expect, it } from "vitest";
import {
  KeyLayer,
  KeypressProvider,
  useHoldKeys,
  useKeypress,
} from "../../src/ui/hooks/useKeypress.js";
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

/** A text field open until Enter; below it, a screen that logs the keys it gets. */
function FieldOverScreen({ seen }: { seen: string[] }) {
  const [open, setOpen] = useState(true);
  const [typed, setTyped] = useState("");
  useKeypress(
    (input, key) => {
      if (key.return) setOpen(false);
      else setTyped((t) => t + input);
      return true;
    },
    { layer: KeyLayer.Field, isActive: open },
  );
  const [n, setN] = useState(0);
  useKeypress((input) => {
    seen.push(input);
    setN((x) => x + 1);
    return true;
  });
  return <Text>{`${open ? "field" : "closed"} “${typed}” screen keys ${n}`}</Text>;
}

/**
 * Keeps React's scheduler busy for `ms` in slices (as a heavy screen's renders and a job's
 * progress do on a loaded machine): a render React scheduled waits behind the slices.
 */
function busyScheduler(ms: number): void {
  const end = performance.now() + ms;
  const slice = (): (() => unknown) | null => {
    const stop = performance.now() + 4;
    while (performance.now() < stop) {}
    return performance.now() < end ? slice : null;
  };
  unstable_scheduleCallback(unstable_NormalPriority, slice);
}

describe("keys typed ahead of the frame", () => {
  it("go to the handlers of the frame the key before them made (Enter closes the field, then 4)", async () => {
    const seen: string[] = [];
    const r = render(
      <KeypressProvider>
        <FieldOverScreen seen={seen} />
      </KeypressProvider>,
    );
    await waitFor(() => (r.lastFrame() ?? "").includes("field “”"), r.lastFrame);
    busyScheduler(100);
    // each key its own write, in one tick: none waits for the frame of the key before it
    for (const k of ["a", "b", "\r", "4"]) r.stdin.write(k);
    await waitFor(() => (r.lastFrame() ?? "").includes("screen keys 1"), r.lastFrame);
    expect(r.lastFrame()).toContain("closed “ab”");
    expect(seen).toEqual(["4"]);
    r.unmount();
  });
});
