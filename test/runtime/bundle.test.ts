import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type * as Manifest from "../../src/core/deploy/bundle-manifest.js";
import type { BundleManifest } from "../../src/core/deploy/bundle-manifest.js";
import type * as Select from "../../src/runtime/select.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { clientEvents, clientOutputs, PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

const DIST = resolve(REPO_ROOT, "dist");
let manifest: BundleManifest;
let bundleCode: string;
// The compiled modules: their paths are relative to dist/, as in production.
let isFresh: typeof Manifest.isFresh;
let hookModuleUrl: typeof Select.hookModuleUrl;

/** Runs the bundle's runHookCli in a real process, as the CLI fast path does. */
function runBundle(ws: string, input: unknown) {
  const file = join(DIST, "runtime/hook.bundle.mjs");
  const code = `const m = await import(${JSON.stringify(file)}); process.exitCode = await m.runHookCli(process.argv.slice(1));`;
  return spawnSync(
    process.execPath,
    ["--input-type=module", "-e", code, "--", "--portfolio", PORTFOLIO, "--workspace", ws],
    { input: JSON.stringify(input), encoding: "utf8", env: { ...process.env, FIRE_STATE_DIR: "" } },
  );
}

describe("the bundled hook (npm run build)", () => {
  beforeAll(async () => {
    const r = spawnSync(process.execPath, [join(DIST, "build/bundle.js")], { encoding: "utf8" });
    expect(r.stdout).toMatch(/^hook bundle: \d+ modules → dist\/runtime\/hook\.bundle\.mjs/m);
    manifest = JSON.parse(readFileSync(join(DIST, "runtime/hook.bundle.json"), "utf8"));
    bundleCode = readFileSync(join(DIST, "runtime/hook.bundle.mjs"), "utf8");
    ({ hookModuleUrl } = (await import(join(DIST, "runtime/select.js"))) as typeof Select);
    ({ isFresh } = (await import(join(DIST, "core/deploy/bundle-manifest.js"))) as typeof Manifest);
  });

  it("is one file holding the hot path, fresh right after the build", () => {
    const paths = manifest.sources.map((s) => s.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "runtime/run-hook.js",
        "core/policy/evaluator.js",
        "core/policy/compile.js",
      ]),
    );
    expect(paths.filter((p) => /^(ui|llm)\/|policy\/load\.js|hook-input\.js/.test(p))).toEqual([]);
    expect(isFresh(manifest, DIST)).toBe(true);
    expect(hookModuleUrl()).toMatch(/dist\/runtime\/hook\.bundle\.mjs$/);
  });

  it("takes node built-ins without ESM facades; zod and the loader stay lazy; no signal handler", () => {
    // no `import … from "node:fs"` (its facade loads the streams stack on every hook call)
    expect(bundleCode).not.toMatch(/^import\s/m);
    const eager = [...bundleCode.matchAll(/^const \{[^}]*\} = __fireBuiltin\("([^"]+)"\);$/gm)].map(
      (m) => m[1] as string,
    );
    expect(eager).toEqual(expect.arrayContaining(["node:fs", "node:path"]));
    expect(eager.filter((m) => !m.startsWith("node:"))).toEqual([]);
    // loaded only when needed: crypto to verify a frozen portfolio, os off Linux (~5 ms / ~0.5 ms)
    expect(eager).not.toContain("node:crypto");
    expect(eager).not.toContain("node:os");
    const lazy = [...bundleCode.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(lazy).toEqual(expect.arrayContaining(["../core/policy/load.js", "./hook-input.js"]));
    // SIGTERM must always end a hook: nothing installs a handler that could swallow it
    // (proper-lockfile's signal-exit did, and never ran while the thread was blocked).
    expect(lazy).not.toContain("proper-lockfile");
    expect(bundleCode).not.toMatch(/process\.on\(\s*["']SIG/);
  });

  it.each(["claude-rm-deny", "codex-rm-deny"])(
    "answers the %s session exactly as the recorded hook",
    (client) => {
      const ws = tempWorkspace();
      const outputs = clientEvents(client).map((e) => {
        const r = runBundle(ws, e);
        expect([r.status, r.stderr]).toEqual([0, ""]);
        return r.stdout.trim() ? JSON.parse(r.stdout) : null;
      });
      expect(outputs).toEqual(clientOutputs(client));
    },
  );

  it("is not used once a bundled module's content changes; a re-emitted identical module keeps it", () => {
    const dir = tempWorkspace();
    mkdirSync(join(dir, "runtime"), { recursive: true });
    writeFileSync(join(dir, "runtime/hook.bundle.mjs"), "export {};\n");
    const m: BundleManifest = { entry: "hook.bundle.mjs", sources: [] };
    for (const rel of ["runtime/a.js", "core/b.js"]) {
      mkdirSync(join(dir, rel, ".."), { recursive: true });
      const text = `export const x = "${rel}";\n`;
      writeFileSync(join(dir, rel), text);
      const s = statSync(join(dir, rel));
      const sha256 = createHash("sha256").update(text).digest("hex");
      m.sources.push({ path: rel, size: s.size, mtimeMs: s.mtimeMs, sha256 });
    }
    writeFileSync(join(dir, "runtime/hook.bundle.json"), JSON.stringify(m));
    expect(isFresh(m, dir)).toBe(true);
    // like `tsc` re-emitting the same code: new mtime, same bytes → still used, manifest updated
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, "core/b.js"), later, later);
    expect(isFresh(m, dir)).toBe(true);
    expect(hookModuleUrl(join(dir, "runtime"), dir)).toMatch(/runtime\/hook\.bundle\.mjs$/);
    const rewritten = JSON.parse(readFileSync(join(dir, "runtime/hook.bundle.json"), "utf8"));
    expect(rewritten.sources[1].mtimeMs).toBe(statSync(join(dir, "core/b.js")).mtimeMs);
    // same size, different bytes → stale, the plain modules are used
    writeFileSync(join(dir, "core/b.js"), 'export const x = "core/c.js";\n');
    expect(statSync(join(dir, "core/b.js")).size).toBe(m.sources[1]?.size);
    expect(isFresh(m, dir)).toBe(false);
    expect(hookModuleUrl(join(dir, "runtime"), dir)).toMatch(/runtime\/main\.js$/);
    expect(isFresh({ entry: "hook.bundle.mjs", sources: [] }, dir)).toBe(false);
    expect(hookModuleUrl(join(dir, "no-bundle"))).toMatch(/dist\/runtime\/main\.js$/);
  });
});
