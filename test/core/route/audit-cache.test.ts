import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { routingAudit } from "../../../src/core/app/route.js";
import { currentRoutingAudit } from "../../../src/core/app/route-current.js";
import { candidateSession } from "../../../src/core/app/session.js";
import { routeAuditKey, writeRouteAudit } from "../../../src/core/route/audit-cache.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../mine/demo-workspace.js";

afterAll(removeTempWorkspaces);

const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe("fire route's cache", () => {
  it("serves the last audit while attempts and candidate files are unchanged", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    cpSync(join(REPO_ROOT, "candidates"), join(dir, "candidates"), { recursive: true });
    await openCurrentWorkspace(dir); // writes the index
    const ws = await openCurrentWorkspace(dir);
    expect(ws.index).toBeDefined();
    const compute = () =>
      plain(routingAudit({ ws, candidates: candidateSession(ws.dir).candidates }));
    const computed = compute();
    expect(computed.candidates.length).toBeGreaterThan(0);
    expect(plain(await currentRoutingAudit(ws))).toEqual({ audit: computed, errors: [] });
    expect(plain((await currentRoutingAudit(ws)).audit)).toEqual(computed); // from the cache

    // served from the cache: a stored audit under the current key is what comes back
    const key = routeAuditKey(ws, {})!;
    await writeRouteAudit(dir, key, { ...computed, silent: ["from the cache"] });
    expect((await currentRoutingAudit(ws)).audit.silent).toEqual(["from the cache"]);
    // … but not for the audit with retired candidates, another key
    expect(plain((await currentRoutingAudit(ws, { includeRetired: true })).audit)).toEqual(
      plain(
        routingAudit(
          { ws, candidates: candidateSession(ws.dir).candidates },
          { includeRetired: true },
        ),
      ),
    );

    // bytes fire did not write are never served
    const file = workspacePaths(dir).routeCache;
    writeFileSync(file, readFileSync(file, "utf8").replace("from the cache", "edited by hand"));
    expect(plain((await currentRoutingAudit(ws)).audit)).toEqual(computed);

    // a removed candidate file changes the key
    const gone = computed.candidates[0]!;
    rmSync(gone.file!);
    const after = await currentRoutingAudit(ws);
    expect(after.audit.candidates.map((c) => c.policy)).not.toContain(gone.policy);
    expect(plain(after.audit)).toEqual(compute());

    // a file that does not compile is reported on every run, and no audit is kept for it
    const bad = join(workspacePaths(dir).candidates, "broken.yaml");
    writeFileSync(bad, "id: [unclosed\n");
    for (let i = 0; i < 2; i++) {
      const r = await currentRoutingAudit(ws);
      expect(r.errors.map((e) => e.file)).toContain(bad);
    }
  });
});
