import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draft } from "../../../src/core/app/lifecycle.js";
import { freezePortfolio } from "../../../src/core/freeze/freeze.js";
import { listPortfolios } from "../../../src/core/freeze/list.js";
import { listCandidates } from "../../../src/core/lifecycle/store.js";
import type { Cluster } from "../../../src/core/mine/cluster.js";
import { type Demo, minedDemo } from "./demo.js";

const NOW = new Date("2026-11-30T03:00:00Z");

describe("draft (core/app) and listPortfolios on the demo workspace", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await minedDemo();
  }, 60_000);
  afterAll(() => demo.cleanup());

  it("writes a valid draft under candidates/drafts/ once; a second draft is refused as existing", async () => {
    const cluster = demo.cluster("service-persistence");
    const r = await draft(demo, cluster, { now: NOW });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file).toBe(join(demo.dir, "candidates", "drafts", `${r.candidate.id}.yaml`));
    const listed = listCandidates(demo.dir).candidates;
    expect(listed.map((c) => c.policy.id)).toEqual([r.candidate.id]);
    expect(listed[0]!.policy.candidate.lineage.attempts).toEqual(cluster.attemptIds);
    const before = await readFile(r.file, "utf8");
    expect(r.check.lineageTasks).toBe(cluster.taskIds.length);
    const again = await draft(demo, cluster, { now: new Date("2026-12-01T00:00:00Z") });
    expect(again).toMatchObject({ ok: false, reason: "exists", file: r.file });
    expect(await readFile(r.file, "utf8")).toBe(before);
  });

  it("writes nothing when there is no valid draft (unknown mechanism)", async () => {
    const cluster = {
      ...demo.cluster("latex-final-log"),
      mechanismId: "no-such-mechanism",
    } as Cluster;
    const r = await draft(demo, cluster, { now: NOW });
    expect(r).toEqual({
      ok: false,
      reason: "invalid",
      drafter: "template",
      problems: ["no template for mechanism no-such-mechanism"],
    });
    expect(listCandidates(demo.dir).candidates.length).toBe(1);
  });

  it("lists frozen portfolios verified, and a tampered one with its integrity problem", async () => {
    expect(listPortfolios(demo.dir)).toEqual([]);
    const candidates = listCandidates(demo.dir).candidates;
    const r = await freezePortfolio({
      workspace: demo.dir,
      name: "b-good",
      candidates,
      attempts: demo.ws.attempts,
      config: demo.ws.config,
      force: { reason: "test" },
      now: NOW,
    });
    expect(r.ok).toBe(true);
    // A copy of the good portfolio whose frozen policy is then edited.
    await cp(join(demo.dir, "portfolios", "b-good"), join(demo.dir, "portfolios", "a-tampered"), {
      recursive: true,
    });
    const dir = join(demo.dir, "portfolios", "a-tampered");
    const m = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8"));
    const pf = join(dir, m.policies[0].file);
    await writeFile(pf, (await readFile(pf, "utf8")).replace("Relaunch", "Kill"));
    const list = listPortfolios(demo.dir);
    expect(list.map((p) => p.name)).toEqual(["a-tampered", "b-good"]);
    expect(list[1]!.problem).toBeUndefined();
    expect(list[1]!.manifest?.policies.length).toBe(1);
    expect(list[0]!.problem).toMatch(`${pf}: SHA-256 does not match the portfolio manifest`);
    expect(list[0]!.manifest?.name).toBe("b-good"); // the copied manifest still reads
  });
});
