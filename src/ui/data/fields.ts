/** The field editor's model lives in core (src/core/policy/fields.ts); only display helpers here. */
export { type Field, fieldsOf, setField } from "../../core/app/editor.js";

/** `rules.0.message` style label of a path. */
export const pathLabel = (p: (string | number)[]): string => p.join(".");
