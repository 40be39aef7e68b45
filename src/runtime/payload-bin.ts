import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runPayloadHookCli } from "./payload-hook.js";

/**
 * Entry of the standalone hook bundle (`dist/runtime/hook.standalone.mjs`, copied into each
 * screen arm's payload as `fire-hook.mjs`): the payload directory defaults to its own folder.
 */
process.exitCode = await runPayloadHookCli(
  process.argv.slice(2),
  dirname(fileURLToPath(import.meta.url)),
);
