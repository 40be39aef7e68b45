import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  promoteCandidate,
  retireCandidate,
  reviseCandidate,
} from "../../../src/core/lifecycle/actions.js";
import {
  FrozenError,
  listCandidates,
  resolveCandidate,
  writeCandidate,
} from "../../../src/core/lifecycle/store.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const T1 = new Date("2026-11-30T01:00:00Z");
const T2 = new Date("2026-11-30T02:00:00Z");

function draftOf(family: string): Candidate {
  const ref = loadPolicies([`${REPO_ROOT}/candidates/reference/${family}.yaml`]).policies[0]!;
  return Candidate.parse({
    ...ref.candidate,
    id: `d-${family}`,
    status: "draft",
    history: [{ at: T1.toISOString(), status: "draft", note: "drafted" }],
  });
}

describe("candidate lifecycle", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-life-"));
    await mkdir(join(dir, "candidates", "drafts"), { recursive: true });
    await writeCandidate(join(dir, "candidates/drafts/d-latex.yaml"), draftOf("latex-final-log"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("lists the good candidates around an unreadable file, which becomes an error", async () => {
    const dangling = join(dir, "candidates/drafts/dangling.yaml");
    await symlink(join(dir, "nowhere.yaml"), dangling);
    const r = listCandidates(dir);
    expect(r.candidates.map((c) => c.policy.key)).toEqual(["d-latex-final-log@1"]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.file).toBe(dangling);
    expect(r.errors[0]!.format()).toMatch(/dangling\.yaml: cannot read: ENOENT/);
  });

  it("revise makes a new identity that supersedes the old one; both stay, histories appended", async () => {
    const all = listCandidates(dir).candidates;
    const old = resolveCandidate(all, "d-latex-final-log");
    const edited = Candidate.parse({ ...old.candidate, title: "tighter title" });
    const r = await reviseCandidate(dir, old, all, { edited, note: "tighter", now: T2 });
    expect(r.file).toBe(join(dir, "candidates/drafts/d-latex-final-log.v2.yaml"));
    const after = listCandidates(dir);
    expect(after.errors).toEqual([]);
    expect(after.candidates.map((c) => c.policy.key).sort()).toEqual([
      "d-latex-final-log@1",
      "d-latex-final-log@2",
    ]);
    const v2 = resolveCandidate(after.candidates, "d-latex-final-log");
    expect(v2.candidate.version).toBe(2);
    expect(v2.candidate.title).toBe("tighter title");
    expect(v2.candidate.lineage.supersedes).toBe("d-latex-final-log@1");
    expect(v2.candidate.history.at(-1)).toEqual({
      at: T2.toISOString(),
      status: "draft",
      note: "revised from d-latex-final-log@1: tighter",
    });
    const v1 = resolveCandidate(after.candidates, "d-latex-final-log@1");
    expect(v1.candidate.title).not.toBe("tighter title");
    expect(v1.candidate.history.map((h) => h.note)).toEqual([
      "drafted",
      "superseded by d-latex-final-log@2: tighter",
    ]);
  });

  it("promote moves a draft to screening, retire records the reason; only drafts promote", async () => {
    const c = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log");
    await promoteCandidate(c, "worth a run", T2);
    const p = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log");
    expect(p.candidate.status).toBe("screening");
    expect(p.candidate.history.at(-1)?.note).toBe("promoted to screening: worth a run");
    await expect(promoteCandidate(p, "", T2)).rejects.toThrow(/is screening; only a draft/);
    await retireCandidate(p, "over-broad on chess tasks", T2);
    const r = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log");
    expect(r.candidate.status).toBe("retired");
    expect(r.candidate.history.at(-1)).toEqual({
      at: T2.toISOString(),
      status: "retired",
      note: "retired: over-broad on chess tasks",
    });
  });

  it("a frozen candidate is immutable: writes and retirement are refused, the file is unchanged", async () => {
    const file = join(dir, "candidates/drafts/d-latex.yaml");
    const c = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log");
    await writeCandidate(file, { ...c.candidate, status: "frozen" });
    const before = await readFile(file, "utf8");
    const frozen = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log");
    await expect(writeCandidate(file, { ...frozen.candidate, title: "x" })).rejects.toThrow(
      FrozenError,
    );
    await expect(retireCandidate(frozen, "no", T2)).rejects.toThrow(/is frozen/);
    expect(await readFile(file, "utf8")).toBe(before);
    // revising a frozen candidate is how it changes: new file, the frozen one untouched
    const r = await reviseCandidate(dir, frozen, [frozen], { note: "v2", now: T2 });
    expect(r.oldUpdated).toBe(false);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("refuses to write an invalid or unsafe candidate (nothing reaches disk)", async () => {
    const c = resolveCandidate(listCandidates(dir).candidates, "d-latex-final-log").candidate;
    const file = join(dir, "candidates/drafts/bad.yaml");
    await expect(
      writeCandidate(file, { ...c, eligibility: { allOf: [], anyOf: ["x(?=y)"], noneOf: [] } }),
    ).rejects.toThrow(/eligibility\.anyOf\.0: .*linear time/);
    await expect(readFile(file, "utf8")).rejects.toThrow(/ENOENT/);
  });
});
