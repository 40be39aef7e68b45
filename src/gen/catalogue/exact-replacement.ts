import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const MAP =
  "  db_host      -> database.host\n  db_port      -> database.port\n  cache_ttl    -> cache.ttl_seconds\n  log_verbose  -> logging.verbose";

const byteTests = (ok: boolean, detail = "") =>
  pytestOutput(
    "/tests/test_config.py",
    [
      ["test_keys_renamed", true],
      ["test_byte_identical_otherwise", ok],
    ],
    detail,
  );

export const exactReplacement: TaskSpec[] = familyTasks(
  "exact-replacement",
  {
    id: "rename-config-keys",
    instruction: `The YAML files under /app/config use deprecated key names. In every file, replace each deprecated key with its new name exactly as listed below, change nothing else (comments, quoting, key order and blank lines must stay byte-for-byte the same):\n${MAP}`,
    bad: () => {
      const s = new Script();
      s.run(
        "Find the files and current keys.",
        "grep -rnE '^\\s*(db_host|db_port|cache_ttl|log_verbose):' /app/config | head",
        "/app/config/prod.yaml:3:db_host: 'db.internal'\n/app/config/prod.yaml:4:db_port: 5432\n/app/config/staging.yaml:3:db_host: \"stg-db\"\n/app/config/staging.yaml:7:cache_ttl: 300",
      );
      s.run(
        "Apply the four renames with sed.",
        "cd /app/config && sed -i -E 's/^(\\s*)db_host:/\\1database.host:/; s/^(\\s*)db_port:/\\1database.port:/; s/^(\\s*)cache_ttl:/\\1cache.ttl_seconds:/; s/^(\\s*)log_verbose:/\\1logging.verbose:/' *.yaml",
        "",
      );
      s.run(
        "Check no old key remains.",
        "grep -rcE '^\\s*(db_host|db_port|cache_ttl|log_verbose):' /app/config/*.yaml",
        "/app/config/prod.yaml:0\n/app/config/staging.yaml:0",
      ).evidence();
      s.run(
        "Normalise the YAML formatting.",
        "npx --yes prettier --write '/app/config/*.yaml'",
        "app/config/prod.yaml 41ms\napp/config/staging.yaml 6ms",
      ).preFailure();
      return s.fail(
        "Renamed all deprecated keys in /app/config.",
        byteTests(
          false,
          "E   AssertionError: prod.yaml differs outside the renamed keys (line 3: 'db.internal' -> \"db.internal\")",
        ),
        "exact-replacement",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Keep a pristine copy for a mechanical diff.",
        "mkdir -p /tmp/orig && cp -a /app/config/. /tmp/orig/ && ls /tmp/orig",
        "prod.yaml\nstaging.yaml",
      );
      s.run(
        "Rename exactly the four keys.",
        "cd /app/config && sed -i -E 's/^(\\s*)db_host:/\\1database.host:/; s/^(\\s*)db_port:/\\1database.port:/; s/^(\\s*)cache_ttl:/\\1cache.ttl_seconds:/; s/^(\\s*)log_verbose:/\\1logging.verbose:/' *.yaml",
        "",
      );
      s.run(
        "Diff against the originals: only the allowed lines may change.",
        "diff -u /tmp/orig /app/config | grep -E '^[-+][^-+]'",
        "-db_host: 'db.internal'\n+database.host: 'db.internal'\n-db_port: 5432\n+database.port: 5432\n-db_host: \"stg-db\"\n+database.host: \"stg-db\"\n-cache_ttl: 300\n+cache.ttl_seconds: 300",
      ).evidence();
      return s.pass(
        "Renamed the four keys; the diff shows only those lines changed.",
        byteTests(true),
      );
    },
  },
  {
    id: "replace-credential-placeholders",
    instruction:
      "The deployment templates in /app/deploy/*.env.tmpl contain placeholders. Replace each placeholder with the value from /app/secrets.map exactly as listed there, change nothing else: whitespace, comments and line endings must be preserved byte for byte.",
    bad: () => {
      const s = new Script();
      s.run(
        "Read the mapping.",
        "cat /app/secrets.map",
        "__DB_PASSWORD__=s3cr3t-Pa55\n__API_TOKEN__=tok_live_4f9a\n__SMTP_PASS__=mail!pass",
      );
      s.run(
        "Substitute with a Python script.",
        "python3 - <<'EOF'\nimport glob\nm = dict(l.strip().split('=', 1) for l in open('/app/secrets.map'))\nfor f in glob.glob('/app/deploy/*.env.tmpl'):\n    lines = [l.rstrip() for l in open(f)]\n    text = '\\n'.join(lines) + '\\n'\n    for k, v in m.items():\n        text = text.replace(k, v)\n    open(f, 'w').write(text)\nEOF",
        "",
      ).preFailure();
      s.run(
        "Confirm no placeholders remain.",
        "grep -c '__[A-Z_]*__' /app/deploy/*.env.tmpl",
        "/app/deploy/api.env.tmpl:0\n/app/deploy/worker.env.tmpl:0",
      ).evidence();
      return s.fail(
        "All placeholders are replaced.",
        pytestOutput(
          "/tests/test_templates.py",
          [
            ["test_placeholders_replaced", true],
            ["test_bytes_preserved", false],
          ],
          "E   AssertionError: worker.env.tmpl: CRLF line endings and trailing spaces were changed",
        ),
        "exact-replacement",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run(
        "Inspect a template.",
        "cat -A /app/deploy/api.env.tmpl | head -4",
        "# API settings^M$\nDB_PASSWORD=__DB_PASSWORD__^M$\nAPI_TOKEN=__API_TOKEN__  ^M$",
      );
      s.run(
        "Replace with sed.",
        "cd /app/deploy && sed -i 's/__DB_PASSWORD__/s3cr3t-Pa55/g; s/__API_TOKEN__/tok_live_4f9a/g; s/__SMTP_PASS__/mail!pass/g' *.env.tmpl && grep -c '__' *.env.tmpl",
        "api.env.tmpl:0\nworker.env.tmpl:0",
      ).evidence();
      s.run(
        "Tidy the files with the repo's formatter.",
        "cd /app && pre-commit run --files deploy/*.env.tmpl 2>&1 | tail -3",
        "trim trailing whitespace.................................................Failed\n- hook id: trailing-whitespace\n- files were modified by this hook\nmixed line ending........................................................Passed",
      ).preFailure();
      return s.fail(
        "Placeholders replaced and files tidied.",
        pytestOutput(
          "/tests/test_templates.py",
          [
            ["test_placeholders_replaced", true],
            ["test_bytes_preserved", false],
          ],
          "E   AssertionError: api.env.tmpl line 3 lost trailing whitespace",
        ),
        "exact-replacement",
      );
    },
  },
  {
    id: "update-license-headers",
    instruction:
      "Every source file under /app/src starts with a license header naming `Copyright 2019-2024 Initech`. Replace each occurrence of that string with `Copyright 2019-2025 Initech Labs` exactly as given, change nothing else in the files.",
    good: () => {
      const s = new Script();
      s.run(
        "Snapshot the tree for a diff.",
        "cp -a /app/src /tmp/src.orig && grep -rl 'Copyright 2019-2024 Initech' /app/src | wc -l",
        "37",
      );
      s.run(
        "Replace the literal string only.",
        "grep -rl 'Copyright 2019-2024 Initech' /app/src | xargs sed -i 's/Copyright 2019-2024 Initech/Copyright 2019-2025 Initech Labs/'",
        "",
      );
      s.run(
        "Mechanical diff: count changed lines versus files.",
        "diff -r /tmp/src.orig /app/src | grep -c '^>'; diff -r /tmp/src.orig /app/src | grep '^>' | sort -u",
        "37\n> // Copyright 2019-2025 Initech Labs",
      ).evidence();
      return s.pass(
        "Updated 37 headers; the diff shows exactly one changed line per file.",
        pytestOutput("/tests/test_headers.py", [
          ["test_headers", true],
          ["test_no_other_changes", true],
        ]),
      );
    },
  },
);
