import { cp, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  candidateNamed,
  clusterNamed,
  draft,
  freeze,
  mine,
  openSession,
  promote,
  reloadCandidates,
  replayScreen,
  retire,
  routingAudit,
  type WorkspaceSession,
} from "../../src/core/app/index.js";
import { renderRouteAudit } from "../../src/core/route/render.js";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * The workflow on a copy of the demo workspace: mine → draft → replay screen → route → freeze
 * (refused unscreened, then frozen) → fire hook using the frozen portfolio by default → a
 * tampered frozen file rejected (fail open, logged) → export. Steps that only check what a
 * command computes call the core/app use cases the commands call; the built CLI is spawned
 * where its own output, exit codes or the live hook are what is checked.
 */
describe("fire draft / screen replay / route / freeze / hook (demo workspace)", () => {
  let ws: string;
  let session: WorkspaceSession;
  const ids: Record<string, string> = {};
  /** A command in-process (src/cli/run.ts). */
  const fire = (args: string[]) => fireIn([...args, "-w", ws], { cwd: ws });
  /** The built CLI spawned: the live hook (stdin), and the failproofai export of the build. */
  const hook = (input: string) => runFire(["hook"], { cwd: ws, input });
  const spawned = (args: string[]) => runFire([...args, "-w", ws], { cwd: ws });
  const fresh = () => {
    session = reloadCandidates(session);
    return session;
  };

  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), "fire-cli-freeze-"));
    await cp(join(REPO_ROOT, "traces", "generated"), join(ws, "traces", "generated"), {
      recursive: true,
    });
    session = await openSession(ws);
    const mined = await mine(session, { labeler: "heuristic" });
    for (const fam of ["service-persistence", "latex-final-log"]) {
      const c = mined.clusters.find((x) => x.family === fam)!;
      const r = await draft(session, clusterNamed(mined, c.id));
      expect(r.ok).toBe(true);
      if (r.ok) ids[fam] = r.candidate.id;
    }
    fresh();
  }, 120_000);
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("drafts into candidates/drafts with lineage, status draft", async () => {
    const files = (await readdir(join(ws, "candidates", "drafts"))).sort();
    expect(files).toEqual([`${ids["latex-final-log"]}.yaml`, `${ids["service-persistence"]}.yaml`]);
    const text = await readFile(join(ws, "candidates/drafts", files[1]!), "utf8");
    expect(text).toContain("status: draft");
    expect(text).toMatch(/lineage:\n {2}clusters:\n {4}- c-[0-9a-f]{10}\n {2}attempts:\n/);
  });

  it("replays the drafted candidate as promising and persists the screen", async () => {
    const svc = ids["service-persistence"]!;
    const { screen: s } = await replayScreen(session, candidateNamed(session, svc));
    expect(s.verdict.verdict).toBe("promising");
    expect(s.summary.positiveFiring).toEqual({ n: 3, k: 3, rate: 1 });
    const saved = JSON.parse(
      await readFile(join(ws, "screens", "replay", `${svc}-v1`, "screen.json"), "utf8"),
    );
    expect(saved.candidateSha256).toBe(s.candidateSha256);
    // the CLI reads the saved screen back into its verdict
    const v = await fire(["candidate", "verdict", svc]);
    expect(v.stdout.split("\n")[0]).toBe(`${svc}@1 (draft): promising`);
    expect(v.stdout).toContain("  - replay: fires in time on 3/3 positive attempt(s)");
    expect(() => candidateNamed(session, "no-such-candidate")).toThrow(
      /no candidate no-such-candidate in candidates\//,
    );
  });

  it("the routing audit lists the matrix, idle candidates and silent tasks", async () => {
    const a = JSON.parse(JSON.stringify(routingAudit(session)));
    expect(a.candidates.map((c: { policy: string }) => c.policy).sort()).toEqual(
      [`${ids["latex-final-log"]}@1`, `${ids["service-persistence"]}@1`].sort(),
    );
    expect(a.idle).toEqual([]);
    expect(a.multiFamily).toEqual([]);
    const row = a.matrix.find((x: { taskId: string }) => x.taskId === "serve-static-docs");
    expect(row.routes[0].policy).toBe(`${ids["service-persistence"]}@1`);
    expect(a.silent.length).toBe(a.tasks - 6);
    expect(renderRouteAudit(routingAudit(session))).toContain("candidates routing nothing: none");
  });

  it("freeze refuses an unscreened candidate, naming what is missing", async () => {
    const latex = ids["latex-final-log"]!;
    const refused = await freeze(session, [candidateNamed(session, latex)], { name: "p0" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.refused[0]?.policy).toBe(`${latex}@1`);
    expect(refused.refused[0]?.missing.join("\n")).toContain("no promising screen");
    const r = await fire(["freeze", "--name", "p0", latex]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `${latex}@1: no promising screen: no replay screen (run \`fire screen replay ${latex}@1\`)`,
    );
    expect((await fire(["freeze", "--name", "p0", "--force", latex])).status).toBe(2);
    await expect(readdir(join(ws, "portfolios"))).rejects.toThrow(/ENOENT/);
  });

  it("freezes; fire hook uses the frozen portfolio by default; a tampered file is rejected, fail open, logged", async () => {
    const f = await fire(["freeze", "--name", "demo", ids["service-persistence"]!]);
    expect(f.stderr).toBe("");
    expect(f.status).toBe(0);
    const ev = (o: object) => JSON.stringify({ session_id: "s1", cwd: ws, ...o });
    const prompt = "Start the docs server on port 8080 and keep it running after you finish.";
    expect(hook(ev({ hook_event_name: "UserPromptSubmit", prompt })).stdout).toBe("");
    hook(
      ev({
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "python3 -m http.server 8080 &" },
      }),
    );
    const stop = hook(ev({ hook_event_name: "Stop", stop_hook_active: false }));
    expect(stop.status).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ decision: "block" });
    expect(JSON.parse(stop.stdout).reason).toMatch(/keep running after you finish/);

    const m = JSON.parse(await readFile(join(ws, "portfolios/demo/manifest.json"), "utf8"));
    const pf = join(ws, "portfolios/demo", m.policies[0].file);
    // a same-size edit with the old mtime restored is still caught (the hook's cache key has ctime)
    const original = await readFile(pf, "utf8");
    const st = await stat(pf);
    await writeFile(pf, original.replace("Relaunch it", "Relaunch IT"));
    await utimes(pf, st.atime, st.mtime);
    const same = hook(ev({ session_id: "s3", hook_event_name: "Stop", stop_hook_active: false }));
    expect(same.stdout).toBe("");
    const s3 = (await readFile(join(ws, ".fire/hook-log.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .at(-1)!;
    expect(JSON.parse(s3).error).toMatch(/SHA-256 does not match the portfolio manifest/);
    await writeFile(pf, original.replace("Relaunch it", "Kill it"));
    const t = hook(ev({ session_id: "s2", hook_event_name: "Stop", stop_hook_active: false }));
    expect(t.status).toBe(0);
    expect(t.stdout).toBe("");
    const log = (await readFile(join(ws, ".fire/hook-log.jsonl"), "utf8")).trim().split("\n");
    const last = JSON.parse(log.at(-1)!);
    expect(last.session).toBe("s2");
    expect(last.output).toBeNull();
    expect(last.error).toBe(
      `frozen portfolio rejected: ${pf}: SHA-256 does not match the portfolio manifest (frozen policy ${m.policies[0].id}@1 was modified)`,
    );
  });

  it("a frozen candidate cannot be retired; revise keeps both identities", async () => {
    const id = ids["service-persistence"]!;
    await expect(retire(fresh(), candidateNamed(session, id), "x")).rejects.toThrow(/is frozen/);
    const v = await fire(["candidate", "revise", id, "--note", "tighter"]);
    expect(v.status).toBe(0);
    expect(v.stdout).toContain(`${id}@2 supersedes ${id}@1`);
    const files = (await readdir(join(ws, "candidates", "drafts"))).sort();
    expect(files).toContain(`${id}.yaml`);
    expect(files).toContain(`${id}.v2.yaml`);
    const next = candidateNamed(fresh(), `${id}@2`);
    await promote(session, next, "");
    expect(candidateNamed(fresh(), `${id}@2`).candidate.status).toBe("screening");
  });

  it("exports the frozen portfolio for failproofai only while its hashes hold", async () => {
    const out = join(ws, "fp");
    const bad = spawned(["export", "--portfolio", "demo", "--format", "failproofai", "--out", out]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/SHA-256 does not match the portfolio manifest/);
    const m = JSON.parse(await readFile(join(ws, "portfolios/demo/manifest.json"), "utf8"));
    const pf = join(ws, "portfolios/demo", m.policies[0].file);
    await writeFile(pf, (await readFile(pf, "utf8")).replace("Kill it", "Relaunch it"));
    const ok = spawned(["export", "--portfolio", "demo", "--format", "failproofai", "--out", out]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      "fire-demo.policies.mjs",
      "fire-demo.portfolio.json",
      "fire-demo.runtime.mjs",
    ]);
    expect((await fire(["export", "--portfolio", "demo", "--format", "yaml"])).status).toBe(2);
  });
});
