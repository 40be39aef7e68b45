import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe } from "vitest";
import { CASES, caseName, caseTests } from "./cases.js";
import { clientBin, clientVersion, keepFixture, RIG, runCase } from "./record.mjs";

/**
 * `npm run test:real-clients` (opt-in, not in `npm test`): the recorded cases run LIVE with the
 * pinned clients (CLAUDE_BIN / CODEX_BIN, or FIRE_RC_CLIENTS=<folder with node_modules/.bin>)
 * and the rig (FIRE_RC_RIG, else ../shared/realclients). A client that is missing or not the
 * pinned version is skipped loudly: its cases are reported skipped, never passed.
 */
const PINNED = { claude: "2.1.332", codex: "0.171.0" } as const;

function readiness(client: "claude" | "codex"): string | undefined {
  if (!existsSync(join(RIG, "run-claude.sh"))) return `no real-client rig at ${RIG} (FIRE_RC_RIG)`;
  const bin = clientBin(client) as string | undefined;
  if (!bin) return `${client} not found (set ${client.toUpperCase()}_BIN or FIRE_RC_CLIENTS)`;
  const v = (clientVersion(bin) as string | undefined) ?? "";
  if (!v.includes(PINNED[client])) return `${bin} is "${v}", not the pinned ${PINNED[client]}`;
  return undefined;
}

const missing = {
  claude: readiness("claude"),
  codex: readiness("codex"),
};
const skipped = Object.values(missing).filter(Boolean);
if (skipped.length)
  // printed while the file is collected: a fully skipped file runs no hooks
  console.error(
    `\n*** REAL-CLIENT CASES SKIPPED (not passed): ${skipped.join("; ")}\n*** install them: ` +
      `npm i @anthropic-ai/claude-code@${PINNED.claude} @openai/codex@${PINNED.codex} in a scratch folder\n`,
  );

for (const c of CASES) {
  const reason = missing[c.client];
  describe.skipIf(reason !== undefined)(`live real client ${caseName(c)}`, () => {
    const root = mkdtempSync(join(tmpdir(), `fire-rc-${caseName(c)}-`));
    const kept = join(root, "kept");
    beforeAll(() => {
      const code = runCase(c.client, c.script, join(root, "run"));
      if (code !== 0) throw new Error(`${caseName(c)}: the rig exited ${code} (see ${root}/run)`);
      keepFixture(join(root, "run"), kept);
    }, 240_000);
    caseTests(c, () => kept);
  });
}
