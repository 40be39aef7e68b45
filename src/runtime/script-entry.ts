/**
 * The hook as ONE CommonJS script, `dist/runtime/hook.script.cjs` (built by
 * src/build/bundle.ts): the `fire` bin (src/cli/fire.cts) compiles it with V8's code cache,
 * so a hook call skips both the ES module loader and most compilation. `currentBundle` lets
 * the bin check, from inside the script, that the script still matches dist/.
 */
export { hookCall, runHookCli } from "./main.js";
export { currentBundle } from "./select.js";
export { readStdin } from "./stdin.js";
