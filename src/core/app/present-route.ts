/**
 * The routing audit's presenter (re-exported by present.ts), in a module of its own so
 * `fire route` loads it and not every presenter's module.
 */

export { renderRouteAudit } from "../route/render.js";
