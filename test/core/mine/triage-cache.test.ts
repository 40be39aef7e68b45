import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { decide } from "../../../src/core/app/mining.js";
import { runMining } from "../../../src/core/mine/run-mining.js";
import { triageKey, writeTriageCache } from "../../../src/core/mine/triage-cache.js";
import { currentTriage, triageView } from "../../../src/core/mine/triage-view.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe("fire triage's cache", () => {
  it("serves the last triage while its inputs are unchanged, and follows a decision", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await runMining(await openCurrentWorkspace(dir), { labeler: "heuristic" });
    const ws = await openCurrentWorkspace(dir);
    expect(ws.index).toBeDefined();
    const computed = plain((await triageView(ws)).triage);
    expect(plain(await currentTriage(ws))).toEqual(computed); // computed and stored
    expect(plain(await currentTriage(ws))).toEqual(computed); // from the cache

    // served from the cache: a stored answer under the current key is what comes back
    const key = (await triageKey(ws))!;
    const marked = { ...computed, inScope: ["from the cache"] };
    await writeTriageCache(dir, key, marked);
    expect((await currentTriage(ws)).inScope).toEqual(["from the cache"]);

    // bytes fire did not write (no matching stamp) are never served: computed again
    const file = workspacePaths(dir).triageCache;
    writeFileSync(file, readFileSync(file, "utf8").replace("from the cache", "edited by hand"));
    expect(plain(await currentTriage(ws))).toEqual(computed);

    // a decision changes the key: the exclusion shows at once
    const id = computed.inScope[0]!;
    await decide({ ws }, { op: "exclude", attemptIds: [id], reason: "quirk" });
    const after = await currentTriage(ws);
    expect(after.inScope).not.toContain(id);
    expect(after.exclusions.find((e) => e.attemptId === id)?.reason).toBe("excluded_by_user");
    expect(plain(after)).toEqual(plain((await triageView(ws)).triage));
  });
});
