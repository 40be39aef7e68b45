/**
 * Number formats for the front ends, apart from the presenters (core/app/present.ts, which
 * re-exports them): a read command that only prints a table imports these alone, not every
 * renderer the presenters bring.
 */
export { fmtReward } from "../report/format.js";
