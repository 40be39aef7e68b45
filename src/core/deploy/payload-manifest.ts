import { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../errors.js";
import { PAYLOAD_FORMAT, type PayloadManifest } from "./payload-format.js";

/**
 * `payload.json` of a hook payload (a screen arm's, or the one inside fire's hook plugin) as
 * the host reads it back (zod; the standalone hook in a container checks it without zod).
 */
const PayloadManifestSchema = z.looseObject({
  format: z.literal(PAYLOAD_FORMAT),
  screen: z.string(),
  arm: z.string(),
  harness: z.enum(["claude", "codex"]),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex")),
});

/** Parses a payload manifest's text; an InputError names the file (and line) and what is wrong. */
export function parsePayloadManifest(text: string, file: string): PayloadManifest {
  const raw = parseJsonText(text, file);
  const r = PayloadManifestSchema.safeParse(raw);
  if (!r.success)
    throw new InputError(
      file,
      undefined,
      `not a hook payload manifest: ${describeZodIssues(r.error.issues)}`,
    );
  return r.data as PayloadManifest;
}
