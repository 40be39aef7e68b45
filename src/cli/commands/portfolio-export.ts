import { relative } from "node:path";
import { exportPortfolio as exportAction } from "../../core/app/export.js";
import { UsageError } from "../../core/errors.js";
import { print } from "../util/out.js";

/**
 * `fire export --portfolio NAME --format failproofai [--out DIR]` (called by the export
 * command): the frozen portfolio as failproofai policy modules, default
 * `exports/failproofai/<NAME>/`.
 */
export async function exportPortfolio(
  workspace: string,
  name: string,
  format: string | undefined,
  out: string | undefined,
): Promise<void> {
  if ((format ?? "failproofai") !== "failproofai")
    throw new UsageError(`--format must be failproofai for a portfolio, not '${format}'`);
  const r = await exportAction(workspace, name, out);
  print(
    `exported ${r.policies.length} polic(ies) of ${name} for failproofai: ${relative(process.cwd(), r.module)} (+ ${relative(process.cwd(), r.sidecar)}, fire-runtime/)\n` +
      `install: copy the folder to .failproofai/policies/ or \`failproofai policies --install --custom ${relative(process.cwd(), r.module)}\`\n`,
  );
}
