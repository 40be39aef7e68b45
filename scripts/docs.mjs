// Writes the generated parts of docs/ from the built program (run `npm run build` first, or
// use `npm run docs`, which builds). `--check` writes nothing and exits 1 when a file differs.
// test/docs/fresh.test.ts runs the same comparison in `npm test` and CI.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliReference } from "../dist/cli/reference.js";
import { withConditionKeysTable } from "../dist/core/policy/atoms.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const policyLanguage = join(root, "docs/policy-language.md");
const files = {
  "docs/cli.md": await cliReference(),
  "docs/policy-language.md": withConditionKeysTable(readFileSync(policyLanguage, "utf8")),
};
let stale = 0;
for (const [path, text] of Object.entries(files)) {
  const file = join(root, path);
  let old = "";
  try {
    old = readFileSync(file, "utf8");
  } catch {}
  if (old === text) continue;
  if (check) {
    stale++;
    process.stderr.write(`${path} is stale: run npm run docs\n`);
  } else {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
process.exitCode = stale ? 1 : 0;
