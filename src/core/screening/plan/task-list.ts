import { InputError } from "../../errors.js";
import { COHORTS, Cohort } from "../../model/cohort.js";

export interface ListedTask {
  id: string;
  cohort?: Cohort;
}

/**
 * A task list file: one task a line, `task` or `task,cohort` (`#` comments, blank lines
 * skipped). Bad lines are errors naming file:line; the others load.
 */
export function parseTaskList(
  text: string,
  file: string,
): { tasks: ListedTask[]; errors: InputError[] } {
  const tasks: ListedTask[] = [];
  const errors: InputError[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    const parts = line.split(",").map((s) => s.trim());
    const [id, name, ...rest] = parts;
    const cohort = name === undefined ? undefined : Cohort.safeParse(name);
    if (!id || rest.length || (cohort !== undefined && !cohort.success)) {
      errors.push(
        new InputError(
          file,
          i + 1,
          `expected \`task\` or \`task,cohort\` (cohort: one of ${COHORTS.join(", ")})`,
        ),
      );
      return;
    }
    if (seen.has(id)) {
      errors.push(new InputError(file, i + 1, `task ${id} is listed twice`));
      return;
    }
    seen.add(id);
    tasks.push(cohort?.success ? { id, cohort: cohort.data } : { id });
  });
  return { tasks, errors };
}
