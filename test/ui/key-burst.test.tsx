import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

/** The index of the selected row among the rows whose text matches `row`, or -1. */
function selectedAt(frame: string, row: RegExp): number {
  return frame
    .split("\n")
    .filter((l) => row.test(l))
    .findIndex((l) => l.startsWith("▸"));
}

const TRIAGE_ROW = /^[▸ ] [◐○●⊘] /;
const CANDIDATE_ROW = /^[▸ ]\s+[a-z]+\s+\S+@\d+\s/;

describe("keys sent in one write", () => {
  it("a key after a screen switch goes to the new screen (4j moves the Candidates list)", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    expect(selectedAt(app.frame(), TRIAGE_ROW)).toBe(0);
    app.stdin.write("4j");
    await waitFor(() => selectedAt(app.frame(), CANDIDATE_ROW) === 1, app.frame);
    // the Triage list did not move: back on it, the first row is still selected
    app.stdin.write("1");
    await waitFor(() => selectedAt(app.frame(), TRIAGE_ROW) >= 0, app.frame);
    expect(selectedAt(app.frame(), TRIAGE_ROW)).toBe(0);
    app.unmount();
  });

  it("a burst on one screen is every key of it (jjj then jjk)", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    app.stdin.write("jjj");
    await waitFor(() => selectedAt(app.frame(), TRIAGE_ROW) === 3, app.frame);
    app.stdin.write("jjk");
    await waitFor(() => selectedAt(app.frame(), TRIAGE_ROW) === 4, app.frame);
    app.unmount();
  });
});
