import { pytestOutput, Script } from "../script.js";
import type { AttemptScript } from "../types.js";

/** Small builders shared by the silent-task modules. */
export const tests = (file: string, names: string[], ok: boolean | boolean[], detail = "") =>
  pytestOutput(
    file,
    names.map((n, i) => [n, Array.isArray(ok) ? (ok[i] ?? false) : ok]),
    detail,
  );

export function simplePass(
  say: string,
  cmds: [string, string][],
  final: string,
  verifier: string,
): AttemptScript {
  const s = new Script();
  for (const [cmd, out] of cmds) s.run(say, cmd, out);
  s.evidence();
  return s.pass(final, verifier);
}

export const providerFault = (): AttemptScript => {
  const s = new Script();
  return {
    ...s.fail("", "", "provider_fault"),
    final: null,
    exception: {
      type: "LLMProviderError",
      message:
        'litellm.InternalServerError: AnthropicException - {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} (529)',
    },
  };
};
