import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { Candidate } from "./schema.js";

/** The JSON Schema of a candidate file (input side: defaults are optional), for editors. */
export function candidateJsonSchema(): string {
  const schema = z.toJSONSchema(Candidate, { io: "input", unrepresentable: "any" });
  const out = {
    ...schema,
    $id: "https://fire.invalid/schema/candidate.schema.json",
    title: "fire candidate policy",
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Writes the schema atomically (used by `npm run schema`). */
export function writeCandidateSchema(path: string): void {
  writeFileAtomic.sync(path, candidateJsonSchema());
}
