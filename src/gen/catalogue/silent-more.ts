import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { spec } from "./define.js";

/** More ordinary tasks with no family mechanism (routing audits expect no policy here). */
export const moreSilentTasks: TaskSpec[] = [
  spec(
    null,
    "silent",
    {
      id: "openssl-self-signed-cert",
      instruction:
        "Create a self-signed TLS certificate for `internal.example.test` valid for 365 days with a 3072-bit RSA key. Save the key to /app/tls/server.key and the certificate to /app/tls/server.crt; the certificate must include a subjectAltName for the host.",
      good: () => {
        const s = new Script();
        s.run(
          "Generate key and certificate.",
          "mkdir -p /app/tls && openssl req -x509 -newkey rsa:3072 -nodes -days 365 -subj '/CN=internal.example.test' -addext 'subjectAltName=DNS:internal.example.test' -keyout /app/tls/server.key -out /app/tls/server.crt 2>&1 | tail -1",
          "-----",
        );
        s.run(
          "Inspect it.",
          "openssl x509 -in /app/tls/server.crt -noout -subject -ext subjectAltName -dates",
          "subject=CN = internal.example.test\nX509v3 Subject Alternative Name: \n    DNS:internal.example.test\nnotBefore=Oct 12 08:31:02 2026 GMT\nnotAfter=Oct 12 08:31:02 2027 GMT",
        ).evidence();
        return s.pass(
          "Key and certificate written; SAN present, valid 365 days.",
          pytestOutput("/tests/test_cert.py", [
            ["test_key_size", true],
            ["test_san", true],
            ["test_validity", true],
          ]),
        );
      },
    },
    ["good", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "logrotate-nginx",
      instruction:
        "Configure logrotate so that the nginx logs in /var/log/nginx/*.log are rotated daily, 14 rotations are kept, old logs are compressed (except the most recent rotation), and nginx reopens its logs after rotation.",
      good: () => {
        const s = new Script();
        s.run(
          "Write the config.",
          "cat > /etc/logrotate.d/nginx <<'EOF'\n/var/log/nginx/*.log {\n    daily\n    rotate 14\n    compress\n    delaycompress\n    missingok\n    notifempty\n    sharedscripts\n    postrotate\n        [ -s /run/nginx.pid ] && kill -USR1 $(cat /run/nginx.pid)\n    endscript\n}\nEOF",
          "",
        );
        s.run(
          "Dry-run it.",
          "logrotate -d /etc/logrotate.d/nginx 2>&1 | grep -E 'rotating pattern|compress'",
          "rotating pattern: /var/log/nginx/*.log  after 1 days (14 rotations)\nold logs will be compressed, delaying compression",
        ).evidence();
        return s.pass(
          "logrotate config in place and validated with a dry run.",
          pytestOutput("/tests/test_logrotate.py", [
            ["test_daily", true],
            ["test_rotate_14", true],
            ["test_postrotate", true],
          ]),
        );
      },
      bad: () => {
        const s = new Script();
        s.run(
          "Write the config.",
          "cat > /etc/logrotate.d/nginx <<'EOF'\n/var/log/nginx/access.log {\n    daily\n    rotate 14\n    compress\n}\nEOF",
          "",
        );
        s.run(
          "Dry-run.",
          "logrotate -d /etc/logrotate.d/nginx 2>&1 | head -3",
          "reading config file /etc/logrotate.d/nginx\nrotating pattern: /var/log/nginx/access.log  after 1 days (14 rotations)",
        );
        return s.fail(
          "Configured daily rotation with 14 kept logs.",
          pytestOutput(
            "/tests/test_logrotate.py",
            [
              ["test_daily", true],
              ["test_rotate_14", true],
              ["test_postrotate", false],
            ],
            "E   AssertionError: error.log not covered; no postrotate reopen",
          ),
          null,
        );
      },
    },
    ["bad", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "argparse-cli-wrapper",
      instruction:
        "Turn /app/convert.py into a command-line tool: `python3 /app/convert.py INPUT -o OUTPUT [--format {csv,tsv}] [--verbose]`, printing a usage message and exiting with status 2 on bad arguments.",
      good: () => {
        const s = new Script();
        s.run(
          "Add argparse handling.",
          "python3 /app/tools/add_cli.py /app/convert.py && python3 /app/convert.py --help | head -3",
          "usage: convert.py [-h] -o OUTPUT [--format {csv,tsv}] [--verbose] INPUT\n\npositional arguments:",
        );
        s.run(
          "Try a bad argument.",
          "python3 /app/convert.py data.json --format xml; echo exit=$?",
          "usage: convert.py [-h] -o OUTPUT [--format {csv,tsv}] [--verbose] INPUT\nconvert.py: error: argument --format: invalid choice: 'xml' (choose from 'csv', 'tsv')\nexit=2",
        ).evidence();
        return s.pass(
          "convert.py has a full argparse CLI.",
          pytestOutput("/tests/test_cli.py", [
            ["test_help", true],
            ["test_bad_args", true],
            ["test_convert", true],
          ]),
        );
      },
    },
    ["good", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "jq-json-to-csv",
      instruction:
        "Convert /app/users.json (an array of user objects with nested `address`) to /app/users.csv with columns id,name,email,city using jq. Users without an email must be skipped.",
      good: () => {
        const s = new Script();
        s.run(
          "Convert with jq.",
          'jq -r \'["id","name","email","city"], (.[] | select(.email != null) | [.id, .name, .email, .address.city]) | @csv\' /app/users.json > /app/users.csv && head -3 /app/users.csv && wc -l < /app/users.csv',
          '"id","name","email","city"\n1,"Ada Byron","ada@example.test","London"\n3,"Alan T","alan@example.test","Wilmslow"\n88',
        ).evidence();
        return s.pass(
          "users.csv written (87 users with email).",
          pytestOutput("/tests/test_csv.py", [
            ["test_header", true],
            ["test_rows", true],
          ]),
        );
      },
      bad: () => {
        const s = new Script();
        s.run(
          "Convert.",
          "jq -r '.[] | [.id, .name, .email, .address.city] | @csv' /app/users.json > /app/users.csv && wc -l < /app/users.csv",
          "100",
        );
        return s.fail(
          "users.csv is written.",
          pytestOutput(
            "/tests/test_csv.py",
            [
              ["test_header", false],
              ["test_rows", false],
            ],
            "E   assert 100 == 87",
          ),
          null,
        );
      },
    },
    ["good", "bad"],
  ),
];
