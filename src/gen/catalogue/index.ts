import type { TaskSpec } from "../types.js";
import { servicePersistence } from "./service-persistence.js";
import { silentTasks } from "./silent.js";

/** Every task the generator knows, family tasks first, in a fixed order. */
export const CATALOGUE: readonly TaskSpec[] = [...servicePersistence, ...silentTasks];
