/**
 * `fire triage`'s answer (also re-exported by workspace.ts), in a module of its own so the
 * command loads the triage cache and what computing triage needs only on a miss.
 */

export { currentTriage } from "../mine/triage-view.js";
