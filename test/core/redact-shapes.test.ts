import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { redact, redactDeep, redactSecrets } from "../../src/core/redact.js";

/** [shape, text with the secret in it, the secret itself] — one row per common credential shape. */
const hex = (n: number) => "0123456789abcdef".repeat(8).slice(0, n);
const alnum = (n: number) => "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z".repeat(4).slice(0, n);
const SHAPES: readonly [string, string, string][] = [
  ["mysql -p glued", "mysql -u root -pS3cretDb! prod < dump.sql", "S3cretDb!"],
  ["mysqldump -p quoted", "mysqldump -uadmin -p'Quoted#Pw9' shop", "Quoted#Pw9"],
  ["sshpass -p", "sshpass -p 'ssh-Pa55' ssh deploy@10.0.0.5", "ssh-Pa55"],
  ["docker login -p", "docker login -u bot -p dckr_pat_x7Hq2Lm registry.io", "dckr_pat_x7Hq2Lm"],
  ["curl -u user:pw", "curl -u admin:Adm1nPw! https://api.example.com", "Adm1nPw!"],
  ["curl --user", 'curl --user "ci:Tok-42-xyz" https://x.example', "Tok-42-xyz"],
  ["openssl pass:", "openssl enc -aes256 -passin pass:Op3nSsl-pw -in a", "Op3nSsl-pw"],
  ["stripe live key", `STRIPE=sk_live_${alnum(24)}`, `sk_live_${alnum(24)}`],
  ["stripe restricted key", `key rk_test_${alnum(24)} used`, `rk_test_${alnum(24)}`],
  ["google api key", `https://maps.googleapis.com/?key=AIza${alnum(35)}`, `AIza${alnum(35)}`],
  ["google oauth token", `ya29.${alnum(40)} expires`, `ya29.${alnum(40)}`],
  [
    "jwt",
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  ],
  [
    "azure AccountKey",
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${alnum(40)}==;EndpointSuffix=core`,
    `${alnum(40)}==`,
  ],
  ["azure SAS sig", `https://a.blob.core.windows.net/c?sv=2020&sig=${alnum(30)}%3D`, alnum(30)],
  ["password with spaces", 'password = "correct horse battery"', "correct horse battery"],
  ["secret single-quoted spaces", "client_secret: 'two words here'", "two words here"],
  ["cookie header", "Cookie: session=abc123def456; csrftoken=zz99", "session=abc123def456"],
  ["set-cookie header", "Set-Cookie: sid=s%3Aabcdef123456; Path=/", "s%3Aabcdef123456"],
  ["x-api-key header", "X-Api-Key: live-7f3k2m9q1w", "live-7f3k2m9q1w"],
  ["PGPASSWORD env", "PGPASSWORD=pgS3cret psql -h db", "pgS3cret"],
  ["aws secret assignment", `aws_secret_access_key = ${alnum(40)}`, alnum(40)],
  ["npm token", `//registry.npmjs.org/:_authToken=npm_${alnum(36)}`, `npm_${alnum(36)}`],
  ["pypi token", `pypi-AgEIcHlwaS5vcmc${alnum(50)}`, alnum(50)],
  ["huggingface token", `HF hf_${alnum(34)} set`, `hf_${alnum(34)}`],
  ["gitlab token", `glpat-${alnum(20)}`, `glpat-${alnum(20)}`],
  ["sendgrid key", `SG.${alnum(22)}.${alnum(43)}`, alnum(43)],
  ["twilio key", `SK${hex(32)}`, `SK${hex(32)}`],
  ["shopify token", `shpat_${hex(32)}`, `shpat_${hex(32)}`],
  ["digitalocean token", `dop_v1_${hex(64)}`, hex(64)],
  ["telegram bot token", `https://api.telegram.org/bot123456789:AA${alnum(33)}/send`, alnum(33)],
  [
    "slack webhook",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "XXXXXXXXXXXXXXXXXXXXXXXX",
  ],
  [
    "age secret key",
    `AGE-SECRET-KEY-1${"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".repeat(2).slice(0, 58)}`,
    "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
  ],
  ["digest auth header", "Authorization: Digest username62ab9f", "username62ab9f"],
  ["--client-secret flag", "gcloud x --client-secret=Gc1ientS3c", "Gc1ientS3c"],
  ["YAML value on the next line, indented", "db:\n  password:\n    Xk9pQ2mZ7vL4", "Xk9pQ2mZ7vL4"],
];

describe("redact covers the common credential shapes", () => {
  for (const [shape, text, secret] of SHAPES) {
    it(`redacts ${shape}`, () => {
      const out = redact(text);
      expect(out).not.toContain(secret);
      expect(out).toMatch(/\[REDACTED:[a-z-]+\]/);
      expect(redact(out)).toBe(out); // idempotent
    });
  }

  it("keeps the visible half of a pair (user name, header name, flag)", () => {
    expect(redact("curl -u admin:Adm1nPw! https://x")).toBe(
      "curl -u admin:[REDACTED:basic-auth] https://x",
    );
    expect(redact("mysql -uroot -pS3cret db")).toBe("mysql -uroot -p[REDACTED:cli-password] db");
    expect(redact("Cookie: a=b1234567")).toBe("Cookie: [REDACTED:cookie]");
  });

  it("leaves near misses alone", () => {
    const plain = [
      "ls -p /tmp",
      "grep -p pattern file",
      "mkdir -p /app/out",
      "curl -u $USER:$TOKEN https://x",
      "ssh -p 2222 host",
      "cookies are baked at 180C",
      "password: $DB_PASSWORD",
      "the jwt library eyJ is a prefix",
      "tests pass: 12",
      "SKIP this step",
      "sig=short",
      "token_limit_exceeded: enqueued token limit reached",
      "secretName: db-credentials-ref",
      "max_tokens: 2000",
      // a name at a line's end assigns nothing to an unindented next line (a task's prose)
      "Implement the following function(s) to make the tests pass:",
      "",
      "**Target function(s):** gear_signature, check_args_num",
    ].join("\n");
    expect(redactSecrets(plain)).toEqual({ text: plain, counts: {} });
  });

  it("redacts every string inside an LLM answer, keeping its shape", () => {
    const answer = {
      mechanism: "ran mysql -pHunter2x",
      evidence: [{ eventIndex: 3, why: "Bearer abcdefgh12345678 in header" }],
      confidence: 0.5,
    };
    const clean = redactDeep(answer);
    expect(clean.confidence).toBe(0.5);
    expect(clean.evidence[0]?.eventIndex).toBe(3);
    expect(JSON.stringify(clean)).not.toContain("Hunter2x");
    expect(JSON.stringify(clean)).not.toContain("abcdefgh12345678");
  });

  it("keeps a tool's JSON input JSON: a value never takes the backslash of an escaped quote", () => {
    // a write tool's input as a trace stores it: code whose strings end right after a value
    const inputs = [
      { path: "/app/t.py", content: 'print("PASS: all_checks_ok")\nprint("token=abc123def")' },
      { command: 'mysql -u root -pS3cretDb! -e "select 1"' },
      { command: 'curl -u admin:Adm1nPw! "https://api.example.com"' },
      { command: 'deploy --password "Hunter2xyz"' },
      { command: 'openssl enc -passin pass:Op3nSsl-pw -in "a"' },
    ];
    for (const input of inputs) {
      const text = redact(JSON.stringify(input));
      expect(() => JSON.parse(text), text).not.toThrow();
    }
    const cmd = JSON.parse(redact(JSON.stringify(inputs[1]))) as { command: string };
    expect(cmd.command).not.toContain("S3cretDb!");
    // a value ending in a backslash (a Windows path) takes the whole escape pair
    const trailing = redact(JSON.stringify({ command: "export TOKEN=S3cretTok\\" }));
    expect(() => JSON.parse(trailing), trailing).not.toThrow();
    expect(trailing).not.toContain("S3cretTok");
    // quoted secrets inside JSON text (escaped quotes) are redacted whole, the JSON kept
    for (const command of [
      'mysql -u root -p"S3cretQq" shop',
      'DB_PASSWORD="Hunter2xyz" ./run.sh',
      'deploy --password "Hunter2xyz"',
      'curl -u "ci:Tok-42-xyz" https://x.example',
      'password = "correct horse battery"',
    ]) {
      const text = redact(JSON.stringify({ command }));
      expect(() => JSON.parse(text), text).not.toThrow();
      for (const secret of ["S3cretQq", "Hunter2xyz", "Tok-42-xyz", "correct horse"])
        expect(text, command).not.toContain(secret);
    }
    // a backslash inside a value that escapes no quote stays part of the value
    expect(redact("PGPASSWORD=ab\\cd1234 psql")).not.toContain("cd1234");
  });

  it("stays fast on hostile input (no backtracking blow-up)", () => {
    const hostile = `${"password=".repeat(2000)}${"a".repeat(20000)} ${"-u x:".repeat(3000)}`;
    const t0 = performance.now();
    redact(hostile);
    expect(performance.now() - t0).toBeLessThan(5000); // generous ceiling for a hang, not a speed target
  });
});

describe("cross-check against secretlint's recommended preset (a maintained rule set)", () => {
  const extra = [
    "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "mongodb+srv://app:Str0ngPw@cluster0.example.net/db",
    "https://user:pass1234@example.com/x",
    "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJ1234",
    `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${"A".repeat(64)}\n-----END RSA PRIVATE KEY-----`,
  ];
  const corpus = [...SHAPES.map(([, text]) => text), ...extra].join("\n");

  const lint = async (content: string) =>
    (
      await lintSource({
        source: { filePath: "/corpus.txt", content, contentType: "text" },
        options: {
          config: {
            rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }],
          },
        },
      })
    ).messages
      .map((m) => `${m.ruleId}: ${content.slice(m.range[0], m.range[1])}`)
      // a connection string whose password is already a marker is still "a connection string"
      .filter((m) => !m.includes("[REDACTED:"));

  it("secretlint finds secrets in the raw corpus and none after redact()", async () => {
    expect((await lint(corpus)).length).toBeGreaterThan(5);
    expect(await lint(redact(corpus))).toEqual([]);
  });
});
