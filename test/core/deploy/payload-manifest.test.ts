import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writePlugin } from "../../../src/core/deploy/plugin.js";
import { ConflictError, InputError } from "../../../src/core/errors.js";
import { verifyPayload } from "../../../src/core/screening/run/adapter.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** A hook payload's `payload.json` read back on the host: through its zod schema. */
const root = mkdtempSync(join(tmpdir(), "fire-payload-manifest-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function payload(name: string): string {
  const p = writePlugin({
    harness: "claude",
    portfolio: join(REPO_ROOT, "test/runtime/fixtures/portfolio"),
    dir: join(root, name),
    hookFile: join(REPO_ROOT, "dist/runtime/hook.standalone.mjs"),
  });
  return join(p.pluginDir, "payload");
}

describe("verifyPayload", () => {
  it("pins an intact payload by its manifest's sha256", () => {
    const dir = payload("ok");
    const text = readFileSync(join(dir, "payload.json"), "utf8");
    expect(verifyPayload(dir)).toBe(createHash("sha256").update(text).digest("hex"));
  });

  it("names the manifest and what is wrong when it is not one (no files listed, bad digest, bad JSON)", () => {
    const dir = payload("bad");
    const file = join(dir, "payload.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...manifest, files: undefined }));
    expect(() => verifyPayload(dir)).toThrow(InputError);
    const err = (() => {
      try {
        verifyPayload(dir);
      } catch (e) {
        return e as InputError;
      }
    })();
    expect(err?.format()).toMatch(/^.*payload\.json: not a hook payload manifest: files: /);
    expect(err?.file).toBe(file);
    writeFileSync(file, JSON.stringify({ ...manifest, files: { "portfolio.json": "abc" } }));
    expect(() => verifyPayload(dir)).toThrow(/a sha256 in hex/);
    writeFileSync(file, '{\n  "format": \n');
    expect(() => verifyPayload(dir)).toThrow(InputError);
  });

  it("names a file changed after the manifest was written", () => {
    const dir = payload("changed");
    writeFileSync(join(dir, "portfolio.json"), "{}\n");
    expect(() => verifyPayload(dir)).toThrow(ConflictError);
    expect(() => verifyPayload(dir)).toThrow(/portfolio\.json has sha256 .* its manifest says/);
  });
});
