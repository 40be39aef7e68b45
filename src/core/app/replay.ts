/** `fire replay`: candidate files replayed over stored attempts with the hook's evaluator. */

export { loadPolicies } from "../policy/load.js";
export { type AttemptReplay, replayAttempts } from "../policy/replay.js";
