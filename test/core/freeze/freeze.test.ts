import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { defaultPortfolioDir } from "../../../src/core/freeze/default.js";
import { freezePortfolio } from "../../../src/core/freeze/freeze.js";
import type { PortfolioManifest } from "../../../src/core/freeze/manifest.js";
import { loadFrozenPortfolio, manifestHashOf, sha256 } from "../../../src/core/freeze/verify.js";
import {
  draftFile,
  listCandidates,
  resolveCandidate,
  writeCandidate,
} from "../../../src/core/lifecycle/store.js";
import { screenCandidate } from "../../../src/core/screening/replay/screen-candidate.js";
import { type Demo, minedDemo } from "../draft/demo.js";

const NOW = new Date("2026-11-30T03:00:00Z");

describe("freezing a portfolio on the demo workspace", () => {
  let demo: Demo;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    demo = await minedDemo();
    const templates = loadTemplates();
    for (const fam of ["service-persistence", "latex-final-log"]) {
      const c = demo.cluster(fam);
      const r = draftFromTemplate(c, demo.ws.attempts, templates, NOW);
      if (!r.ok) throw new Error(r.problems.join("; "));
      const file = draftFile(demo.dir, r.candidate);
      await mkdir(join(demo.dir, "candidates", "drafts"), { recursive: true });
      await writeCandidate(file, r.candidate);
      keys[fam] = `${r.candidate.id}@1`;
    }
  }, 60_000);
  afterAll(() => demo.cleanup());

  const stored = () => listCandidates(demo.dir).candidates;
  const screenAndSave = async (key: string) => {
    const s = stored();
    const c = resolveCandidate(s, key);
    const pool = s.map((x) => x.policy);
    return (await screenCandidate(demo.ws, c.policy, pool, { now: NOW })).screen;
  };

  it("refuses an unscreened candidate, naming what is missing", async () => {
    const s = stored();
    const r = await freezePortfolio({
      workspace: demo.dir,
      name: "p0",
      candidates: [resolveCandidate(s, keys["latex-final-log"]!)],
      attempts: demo.ws.attempts,
      config: demo.ws.config,
      now: NOW,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refused).toEqual([
      {
        policy: keys["latex-final-log"],
        missing: [
          `no promising screen: no replay screen (run \`fire screen replay ${keys["latex-final-log"]}\`)`,
        ],
        verdict: {
          verdict: "inconclusive",
          findings: [{ code: "not-screened", verdict: "inconclusive" }],
        },
      },
    ]);
    expect(defaultPortfolioDir(demo.dir)).toBeUndefined();
  });

  it("--force with a reason freezes anyway and records the exception", async () => {
    const r = await freezePortfolio({
      workspace: demo.dir,
      name: "forced",
      candidates: [resolveCandidate(stored(), keys["latex-final-log"]!)],
      attempts: demo.ws.attempts,
      config: demo.ws.config,
      force: { reason: "demo exception" },
      now: NOW,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.manifest.forced).toEqual([
      {
        policy: keys["latex-final-log"],
        missing: [expect.stringMatching(/^no promising screen/)],
        reason: "demo exception",
      },
    ]);
  });

  it("two concurrent freezes of one name: one wins, the other is refused, no temp folder is left", async () => {
    const freeze = () =>
      freezePortfolio({
        workspace: demo.dir,
        name: "race",
        candidates: [resolveCandidate(stored(), keys["latex-final-log"]!)],
        attempts: demo.ws.attempts,
        config: demo.ws.config,
        force: { reason: "race test" },
        now: NOW,
      });
    const results = await Promise.allSettled([freeze(), freeze(), freeze()]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((x) => x.status === "rejected"))
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/portfolio race already exists/);
    const left = await readdir(join(demo.dir, "portfolios"));
    expect(left.filter((n) => n.startsWith("."))).toEqual([]);
    // a temporary folder left by a crash is never taken as the default portfolio
    const stray = join(demo.dir, "portfolios", ".later.tmp-1");
    await mkdir(stray, { recursive: true });
    await writeFile(join(stray, "manifest.json"), JSON.stringify({ frozenAt: "2999-01-01" }));
    expect(defaultPortfolioDir(demo.dir)).not.toBe(stray);
  });

  it("freezes screened candidates: canonical JSON + SHA-256 per policy, routing, screens, manifest hash", async () => {
    expect((await screenAndSave(keys["service-persistence"]!)).verdict.verdict).toBe("promising");
    const later = new Date("2026-11-30T03:30:00Z");
    const r = await freezePortfolio({
      workspace: demo.dir,
      name: "demo",
      candidates: [resolveCandidate(stored(), keys["service-persistence"]!)],
      attempts: demo.ws.attempts,
      config: demo.ws.config,
      now: later,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const m = r.manifest;
    expect(m.policies.length).toBe(1);
    const p = m.policies[0]!;
    const text = await readFile(join(r.dir, p.file), "utf8");
    expect(sha256(text)).toBe(p.sha256);
    expect(JSON.parse(text).status).toBe("frozen");
    expect(m.routing.candidates[0]!.routed.length).toBe(3);
    expect(m.screens.map((s) => [s.kind, s.verdict])).toEqual([["replay", "promising"]]);
    expect(m.analysis.verdicts).toEqual(demo.ws.config.verdicts);
    expect(m.manifestHash).toMatch(/^[0-9a-f]{64}$/);
    // the source candidate is now frozen (immutable)
    expect(resolveCandidate(stored(), keys["service-persistence"]!).candidate.status).toBe(
      "frozen",
    );
    expect(loadFrozenPortfolio(r.dir).policies.map((x) => x.key)).toEqual([
      keys["service-persistence"],
    ]);
    expect(defaultPortfolioDir(demo.dir)).toBe(r.dir);
    await expect(
      freezePortfolio({
        workspace: demo.dir,
        name: "demo",
        candidates: [resolveCandidate(stored(), keys["service-persistence"]!)],
        attempts: demo.ws.attempts,
        config: demo.ws.config,
        now: later,
      }),
    ).rejects.toThrow(/already exists/);
  });

  it("loading fails naming the file when a frozen policy or the manifest was edited", async () => {
    const dir = join(demo.dir, "portfolios", "demo");
    const m = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8"));
    const pf = join(dir, m.policies[0].file);
    const original = await readFile(pf, "utf8");
    await writeFile(pf, original.replace("Relaunch", "Kill"));
    expect(() => loadFrozenPortfolio(dir)).toThrow(`${pf}: SHA-256 does not match`);
    await writeFile(pf, original);
    expect(loadFrozenPortfolio(dir).policies.length).toBe(1);
    const mf = join(dir, "manifest.json");
    const mtext = await readFile(mf, "utf8");
    await writeFile(
      mf,
      mtext.replace('"forced": []', '"forced": [{"policy":"x","missing":[],"reason":"x"}]'),
    );
    expect(() => loadFrozenPortfolio(dir)).toThrow(`${mf}: manifest hash does not match`);
    await writeFile(mf, mtext);
  });

  it("a manifest whose policy entries are malformed is refused naming file:line and field, even with a matching hash", async () => {
    const dir = join(demo.dir, "portfolios", "demo");
    const mf = join(dir, "manifest.json");
    const mtext = await readFile(mf, "utf8");
    const rehash = (edit: (m: PortfolioManifest) => void): string => {
      const m = JSON.parse(mtext) as PortfolioManifest;
      edit(m);
      return `${JSON.stringify({ ...m, manifestHash: manifestHashOf(m) }, null, 2)}\n`;
    };
    const lineOfField = (text: string, field: string): number =>
      text.slice(0, text.indexOf(`"${field}"`)).split("\n").length;
    try {
      const escaping = rehash((m) => {
        m.policies[0]!.file = "../../outside.json";
      });
      await writeFile(mf, escaping);
      expect(() => loadFrozenPortfolio(dir)).toThrow(
        `${mf}:${lineOfField(escaping, "file")}: policies.0.file: expected a path inside the portfolio folder`,
      );
      const badHash = rehash((m) => {
        m.policies[0]!.sha256 = "not-a-hash";
      });
      await writeFile(mf, badHash);
      expect(() => loadFrozenPortfolio(dir)).toThrow(
        `${mf}:${lineOfField(badHash, "sha256")}: policies.0.sha256: expected a SHA-256 in hex`,
      );
    } finally {
      await writeFile(mf, mtext);
    }
    expect(loadFrozenPortfolio(dir).policies.length).toBe(1);
  });
});
