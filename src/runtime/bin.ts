#!/usr/bin/env node
import { runHookCli } from "./main.js";

/** Standalone hook entry: `node dist/runtime/bin.js [flags]` = `fire hook [flags]`. */
process.exitCode = await runHookCli(process.argv.slice(2));
