import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact, redactSecrets } from "../../src/core/redact.js";

describe("redactSecrets", () => {
  const cases: [string, string, string][] = [
    ["openai key", "key is sk-proj-Zx81kd0QmP2vLr7Tn4Wy9cBf ok", "key is [REDACTED:openai-key] ok"],
    [
      "anthropic key",
      "ANTHROPIC=sk-ant-api03-abcdefghij0123456789XYZ",
      "ANTHROPIC=[REDACTED:anthropic-key]",
    ],
    [
      "github token",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789 pushed",
      "[REDACTED:github-token] pushed",
    ],
    ["aws access key", "id AKIAIOSFODNN7EXAMPLE.", "id [REDACTED:aws-access-key]."],
    ["slack token", "xoxb-1234567890-abcdefghij", "[REDACTED:slack-token]"],
    [
      "bearer header",
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
      "Authorization: Bearer [REDACTED:bearer-token]",
    ],
    ["env assignment", "DB_PASSWORD=hunter2-Sup3r", "DB_PASSWORD=[REDACTED:assigned-secret]"],
    [
      "quoted assignment",
      "export API_KEY='abc123xyz789'",
      "export API_KEY='[REDACTED:assigned-secret]'",
    ],
    ["yaml pair", "  secret: s3cr3t-value", "  secret: [REDACTED:assigned-secret]"],
    [
      "json pair",
      '{"password": "p@ss w0rd", "user": "bob"}',
      '{"password": "[REDACTED:assigned-secret]", "user": "bob"}',
    ],
    [
      "cli flag",
      "mysql --password=Tr0ub4dor -u root",
      "mysql --password=[REDACTED:assigned-secret] -u root",
    ],
    [
      "url credentials",
      "git clone https://deploy:s3cr3tPass@git.example.com/a.git",
      "git clone https://[REDACTED:url-credentials]@git.example.com/a.git",
    ],
    [
      "db url",
      "postgres://app:pw1234@db:5432/prod",
      "postgres://[REDACTED:url-credentials]@db:5432/prod",
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(`redacts ${name}`, () => expect(redact(input)).toBe(expected));
  }

  it("redacts a private key block whole and counts kinds", () => {
    const pem =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    const r = redactSecrets(`before\n${pem}\nafter AKIAIOSFODNN7EXAMPLE`);
    expect(r.text).toBe("before\n[REDACTED:private-key]\nafter [REDACTED:aws-access-key]");
    expect(r.counts).toEqual({ "private-key": 1, "aws-access-key": 1 });
  });

  it("leaves ordinary trace text alone", () => {
    const plain = [
      "total_tokens: 5234",
      '{"prompt_tokens": 120, "max_tokens": 2000}',
      "git log --author=alice",
      "curl https://example.com/path?q=1",
      "password: $DB_PASSWORD",
      "The token count is 42 and the password prompt appeared.",
      "sk-short",
    ].join("\n");
    expect(redactSecrets(plain)).toEqual({ text: plain, counts: {} });
  });

  it("is idempotent", () => {
    const secretish = fc.constantFrom(
      "sk-proj-Zx81kd0QmP2vLr7Tn4Wy9cBf",
      "TOKEN=abcd1234efgh",
      "https://u:p4ssword@h.example",
      "Bearer abcdefgh12345678",
      '"api_key": "zzz999yyy"',
      " ",
      "\n",
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(secretish, fc.string({ maxLength: 12 })), { maxLength: 12 }),
        (parts) => {
          const once = redact(parts.join(""));
          expect(redact(once)).toBe(once);
        },
      ),
    );
  });
});
