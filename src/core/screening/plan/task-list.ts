import { InputError } from "../../errors.js";

export interface ListedTask {
  id: string;
  cohort?: string;
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
    const [id, cohort, ...rest] = parts;
    if (!id || rest.length || (cohort !== undefined && !/^[a-z][a-z0-9-]*$/.test(cohort))) {
      errors.push(
        new InputError(
          file,
          i + 1,
          "expected `task` or `task,cohort` (cohort: lowercase letters, digits, -)",
        ),
      );
      return;
    }
    if (seen.has(id)) {
      errors.push(new InputError(file, i + 1, `task ${id} is listed twice`));
      return;
    }
    seen.add(id);
    tasks.push(cohort ? { id, cohort } : { id });
  });
  return { tasks, errors };
}
