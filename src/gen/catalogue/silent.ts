import { pytestOutput, Script } from "../script.js";
import type { AttemptScript, TaskSpec } from "../types.js";
import { spec } from "./define.js";

/** Tasks no family policy should route to: ordinary work, capability gaps, a provider fault. */

const tests = (file: string, names: string[], ok: boolean | boolean[], detail = "") =>
  pytestOutput(
    file,
    names.map((n, i) => [n, Array.isArray(ok) ? (ok[i] ?? false) : ok]),
    detail,
  );

function simplePass(
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

const providerFault = (): AttemptScript => {
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

export const silentTasks: TaskSpec[] = [
  spec(
    null,
    "silent",
    {
      id: "csv-to-json-parser",
      instruction:
        "Write /app/csv2json.py that reads a CSV file (RFC 4180, quoted fields may contain commas and newlines) given as the first argument and prints a JSON array of objects keyed by the header row. Do not use the csv module.",
      good: () =>
        simplePass(
          "Write and test the parser.",
          [
            [
              "cat > /app/csv2json.py <<'EOF'\nimport json, sys\n\ndef parse(text):\n    rows, row, field, q, i = [], [], '', False, 0\n    while i < len(text):\n        c = text[i]\n        if q:\n            if c == '\"' and text[i+1:i+2] == '\"': field += '\"'; i += 1\n            elif c == '\"': q = False\n            else: field += c\n        elif c == '\"': q = True\n        elif c == ',': row.append(field); field = ''\n        elif c == '\\n': row.append(field); rows.append(row); row, field = [], ''\n        elif c != '\\r': field += c\n        i += 1\n    if field or row: row.append(field); rows.append(row)\n    return rows\n\nrows = parse(open(sys.argv[1], newline='').read())\nprint(json.dumps([dict(zip(rows[0], r)) for r in rows[1:]]))\nEOF",
              "",
            ],
            [
              "python3 /app/csv2json.py /app/tests/sample.csv | python3 -m json.tool | head -8",
              '[\n    {\n        "id": "1",\n        "name": "Widget, large",\n        "note": "two\\nlines"\n    },\n    {\n        "id": "2",',
            ],
          ],
          "csv2json.py parses quoted fields, escaped quotes and embedded newlines.",
          tests(
            "/tests/test_parser.py",
            ["test_simple", "test_quoted_comma", "test_embedded_newline", "test_escaped_quote"],
            true,
          ),
        ),
    },
    ["good", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "fix-failing-date-test",
      instruction:
        "The test suite in /app is failing since the last refactor of `parse_date` in /app/util/dates.py. Fix the code (not the tests) so that `pytest /app/tests` passes.",
      good: () => {
        const s = new Script();
        s.run(
          "Run the tests to see the failure.",
          "cd /app && pytest -q tests 2>&1 | tail -5",
          "FAILED tests/test_dates.py::test_two_digit_year - AssertionError: assert 1924 == 2024\n1 failed, 11 passed in 0.31s",
          1,
        );
        s.run(
          "Look at the function.",
          "sed -n 1,40p util/dates.py",
          "def parse_date(s):\n    d, m, y = s.split('/')\n    y = int(y)\n    if y < 100:\n        y += 1900\n    return date(y, int(m), int(d))",
        );
        s.run(
          "Apply a pivot year for two-digit years.",
          "sed -i 's/        y += 1900/        y += 2000 if y < 70 else 1900/' util/dates.py && pytest -q tests 2>&1 | tail -1",
          "12 passed in 0.29s",
        ).evidence();
        return s.pass(
          "Two-digit years now pivot at 70; all 12 tests pass.",
          tests("/tests/test_suite.py", ["test_repo_suite"], true),
        );
      },
      bad: () => {
        const s = new Script();
        s.run(
          "Run the tests.",
          "cd /app && pytest -q tests 2>&1 | tail -3",
          "FAILED tests/test_dates.py::test_two_digit_year - AssertionError: assert 1924 == 2024\n1 failed, 11 passed in 0.30s",
          1,
        );
        s.run(
          "Always map two-digit years into the 2000s.",
          "sed -i 's/y += 1900/y += 2000/' util/dates.py && pytest -q tests 2>&1 | tail -1",
          "12 passed in 0.28s",
        ).evidence();
        return s.fail(
          "Fixed parse_date; the suite passes.",
          tests(
            "/tests/test_suite.py",
            ["test_repo_suite", "test_hidden_pivot_year"],
            [true, false],
            "E   assert date(2085, 3, 1) == date(1985, 3, 1)",
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
      id: "regex-extract-ipv4",
      instruction:
        "Write a single POSIX extended regular expression to /app/regex.txt that matches exactly the valid dotted-quad IPv4 addresses (0-255 per octet, no leading zeros) in a line of text. The grader runs `grep -Eo -f /app/regex.txt` on a hidden log.",
      good: () =>
        simplePass(
          "Write the regex and check it on edge cases.",
          [
            [
              "printf '%s\\n' '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}' > /app/regex.txt",
              "",
            ],
            [
              "printf 'a 10.0.0.1 b\\n256.1.1.1\\n192.168.001.1\\n255.255.255.255\\n' | grep -Eow -f /app/regex.txt",
              "10.0.0.1\n255.255.255.255",
            ],
          ],
          "The regex accepts 0-255 octets without leading zeros.",
          tests("/tests/test_regex.py", ["test_valid", "test_invalid", "test_boundaries"], true),
        ),
    },
    ["good", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "chess-mate-in-two",
      instruction:
        "The position in /app/position.fen is a mate in two for white. Write the winning line to /app/solution.txt in UCI notation, one per line: white's first move, black's best reply, white's mating move.",
      good: () =>
        simplePass(
          "Solve the position with python-chess.",
          [
            [
              "cat /app/position.fen",
              "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            ],
            [
              "python3 - <<'EOF'\nimport chess\nb = chess.Board(open('/app/position.fen').read())\nm = chess.Move.from_uci('h5f7')\nb.push(m); print(b.is_checkmate())\nEOF",
              "True",
            ],
            ["printf 'h5f7\\n' > /app/solution.txt; cat /app/solution.txt", "h5f7"],
          ],
          "Qxf7# mates immediately; wrote the line.",
          tests("/tests/test_solution.py", ["test_line_is_mate"], true),
        ),
      bad: () => {
        const s = new Script();
        s.run(
          "Read the position.",
          "cat /app/position.fen",
          "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        );
        s.run(
          "Try the back-rank idea.",
          "printf 'd1d8\\n' > /app/solution.txt && cat /app/solution.txt",
          "d1d8",
        );
        return s.fail(
          "Rd8# is mate; wrote the solution.",
          tests(
            "/tests/test_solution.py",
            ["test_line_is_mate"],
            false,
            "E   AssertionError: expected 3 plies (mate in two), got 1",
          ),
          null,
        );
      },
    },
    ["good", "bad"],
  ),
  spec(
    null,
    "silent",
    {
      id: "custom-archive-decoder",
      instruction:
        "/app/blob.xpk was produced by an undocumented in-house compressor (the encoder binary is lost). Recover the original text file to /app/recovered.txt. Its SHA-256 is given in /app/expected.sha256.",
      gap: (rng) => {
        const s = new Script();
        s.run(
          "Inspect the blob.",
          "xxd /app/blob.xpk | head -4",
          "00000000: 5850 4b02 1f8b 0000 a3c1 77f0 0c9e 21d4  XPK.......w...!.\n00000010: 5b1e 9a02 ffe1 4c8d 2b70 c399 e0f1 52a6  [.....L.+p....R.",
        );
        s.run(
          "Try standard decompressors after the 4-byte header.",
          "for t in gzip bzip2 xz zstd lz4; do tail -c +5 /app/blob.xpk | $t -dc > /tmp/o.$t 2>/dev/null && echo ok $t || echo fail $t; done",
          "fail gzip\nfail bzip2\nfail xz\nfail zstd\nfail lz4",
        );
        s.run(
          "Try raw deflate at a few offsets.",
          `python3 -c "import zlib\nd=open('/app/blob.xpk','rb').read()\nfor o in range(0,32):\n  try: print(o, len(zlib.decompress(d[o:], -15)))\n  except Exception as e: pass\nprint('done')"`,
          "done",
        );
        s.run(
          "Guess an LZ77 variant with a 12-bit window.",
          "python3 /tmp/lz_guess.py /app/blob.xpk > /app/recovered.txt; sha256sum /app/recovered.txt; cat /app/expected.sha256",
          `${rng.hex(64)}  /app/recovered.txt\n${rng.hex(64)}`,
        );
        return s.fail(
          "I could not identify the compression format; /app/recovered.txt holds my best-effort decode.",
          tests(
            "/tests/test_recovery.py",
            ["test_sha256"],
            false,
            "E   AssertionError: sha256 mismatch",
          ),
          "capability_gap",
        );
      },
      timeout: (rng) => {
        const s = new Script();
        s.run(
          "Look at the header.",
          "xxd /app/blob.xpk | head -2",
          "00000000: 5850 4b02 1f8b 0000 a3c1 77f0 0c9e 21d4  XPK.......w...!.",
        );
        for (let i = 0; i < 4; i++) {
          s.run(
            "Brute-force another bit-packing hypothesis.",
            `python3 /tmp/bitscan.py --width ${9 + i} /app/blob.xpk | head -c 120`,
            `\u0003\u0019x\u0000\u00ff${rng.alnum(40)}`,
            0,
            120,
          );
        }
        const a = s.fail("", "", "capability_gap");
        return {
          ...a,
          final: null,
          exception: {
            type: "AgentTimeoutError",
            message: "Agent execution timed out after 900.0 seconds",
          },
        };
      },
    },
    ["gap", "timeout"],
  ),
  spec(
    null,
    "silent",
    {
      id: "optimize-sat-solver",
      instruction:
        "Make /app/solver (a DPLL SAT solver in C) solve every instance in /app/bench/ within 10 seconds each. Currently it times out on the larger instances. Keep the command-line interface unchanged.",
      gap: (rng) => {
        const s = new Script();
        s.run(
          "Build and time the benchmark.",
          'cd /app && make -s && for f in bench/*.cnf; do timeout 10 ./solver $f > /dev/null; echo "$f $?"; done | tail -4',
          "bench/uf200-07.cnf 124\nbench/uf200-08.cnf 124\nbench/flat200-3.cnf 124\nbench/logistics.cnf 124",
        );
        s.run(
          "Add a simple VSIDS-like counter for branching.",
          "patch -p1 < /tmp/vsids.diff && make -s 2>&1 | tail -2",
          "solver.c: In function 'pick_var':\nsolver.c:211:17: warning: unused variable 'best' [-Wunused-variable]",
        );
        s.run(
          "Re-run the slow instances.",
          "for f in bench/uf200-0*.cnf; do /usr/bin/time -f %e timeout 10 ./solver $f > /dev/null; done 2>&1 | tail -3",
          "Command exited with non-zero status 124\n10.00\nCommand exited with non-zero status 124",
          124,
          30,
        );
        s.run(
          "Try -O3 and unit propagation with watched literals (partial).",
          "make -s CFLAGS=-O3 && timeout 10 ./solver bench/uf200-07.cnf; echo $?",
          `c conflicts ${rng.int(100000, 900000)}\n124`,
          0,
          10,
        );
        return s.fail(
          "I improved branching but the largest instances still time out; a CDCL rewrite would be needed.",
          tests(
            "/tests/test_bench.py",
            ["test_small", "test_uf200", "test_flat200", "test_logistics"],
            [true, false, false, false],
            "E   TimeoutError: solver exceeded 10s",
          ),
          "capability_gap",
        );
      },
    },
    ["gap", "gap"],
  ),
  spec(
    null,
    "silent",
    {
      id: "yaml-schema-migration",
      instruction:
        "Migrate the service definitions in /app/services/*.yml from schema v1 to v2 (see /app/MIGRATION.md for the mapping) and make `python3 /app/validate.py` report no errors.",
      good: () =>
        simplePass(
          "Apply the migration with a script, then validate.",
          [
            [
              "cat /app/MIGRATION.md | head -12",
              'v1 `ports: ["80:8080"]` becomes v2 `ports: [{published: 80, target: 8080}]`.\nv1 `env` becomes v2 `environment`.',
            ],
            [
              "python3 /app/tools/migrate.py /app/services/*.yml && python3 /app/validate.py",
              "migrated 6 files\nOK: 6 services valid",
            ],
          ],
          "All six service files are on schema v2 and validate.",
          tests("/tests/test_migration.py", ["test_validate", "test_ports"], true),
        ),
      fault: providerFault,
    },
    ["fault", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "sql-monthly-revenue",
      instruction:
        "Using the PostgreSQL database `shop` (connection string in /app/.env), write /app/report.sql that returns monthly revenue for 2024 (month, revenue) ordered by month, counting only paid orders and net of refunds.",
      good: () =>
        simplePass(
          "Write the query and run it.",
          [
            [
              "cat > /app/report.sql <<'EOF'\nSELECT date_trunc('month', o.paid_at)::date AS month,\n       SUM(o.total) - COALESCE(SUM(r.amount), 0) AS revenue\nFROM orders o LEFT JOIN refunds r ON r.order_id = o.id\nWHERE o.status = 'paid' AND o.paid_at >= '2024-01-01' AND o.paid_at < '2025-01-01'\nGROUP BY 1 ORDER BY 1;\nEOF",
              "",
            ],
            [
              'psql "$DATABASE_URL" -f /app/report.sql | head -4',
              "   month    | revenue\n------------+----------\n 2024-01-01 | 48211.40\n 2024-02-01 | 51980.15",
            ],
          ],
          "report.sql returns 12 monthly rows net of refunds.",
          tests("/tests/test_report.py", ["test_rows", "test_values"], true),
        ),
      bad: () => {
        const s = new Script();
        s.run(
          "Write the query.",
          "cat > /app/report.sql <<'EOF'\nSELECT date_trunc('month', created_at)::date AS month, SUM(total) AS revenue\nFROM orders WHERE created_at >= '2024-01-01' GROUP BY 1 ORDER BY 1;\nEOF",
          "",
        );
        s.run(
          "Run it.",
          'psql "$DATABASE_URL" -f /app/report.sql | head -3',
          "   month    | revenue\n------------+----------\n 2024-01-01 | 50377.90",
        );
        return s.fail(
          "report.sql returns monthly revenue for 2024.",
          tests(
            "/tests/test_report.py",
            ["test_rows", "test_values"],
            [true, false],
            "E   assert Decimal('50377.90') == Decimal('48211.40')",
          ),
          null,
        );
      },
    },
    ["good", "bad"],
  ),
  spec(
    null,
    "silent",
    {
      id: "git-merge-conflict",
      instruction:
        "The branch `feature/retry` in /app/repo cannot be merged into `main` because of conflicts. Merge it, resolving the conflicts so that both the retry logic and the new timeout option are kept, and commit the merge.",
      good: () =>
        simplePass(
          "Merge and resolve.",
          [
            [
              "cd /app/repo && git merge feature/retry",
              "Auto-merging client.py\nCONFLICT (content): Merge conflict in client.py\nAutomatic merge failed; fix conflicts and then commit the result.",
            ],
            [
              "python3 /tmp/resolve.py client.py && python3 -m pytest -q && git commit -qam 'Merge feature/retry' && git log --oneline -1",
              "7 passed in 0.22s\n3f1c2ab Merge feature/retry",
            ],
          ],
          "Merged feature/retry keeping retries and the timeout option; tests pass.",
          tests("/tests/test_merge.py", ["test_merged", "test_retry", "test_timeout_option"], true),
        ),
    },
    ["good", "good"],
  ),
  spec(
    null,
    "silent",
    {
      id: "makefile-static-build",
      instruction:
        "Fix /app/Makefile so that `make` builds a statically linked binary /app/build/tool from the sources in /app/src, and `make test` runs the bundled test script.",
      good: () =>
        simplePass(
          "Fix the Makefile and build.",
          [
            [
              "cd /app && sed -i 's/^LDFLAGS =.*/LDFLAGS = -static/' Makefile && make -s && file build/tool",
              "build/tool: ELF 64-bit LSB executable, x86-64, statically linked, not stripped",
            ],
            ["make -s test", "ok 1 - parse\nok 2 - format\nok 3 - roundtrip"],
          ],
          "make builds a static build/tool and make test passes.",
          tests("/tests/test_build.py", ["test_static", "test_make_test"], true),
        ),
      bad: () => {
        const s = new Script();
        s.run(
          "Build.",
          "cd /app && make -s",
          "/usr/bin/ld: cannot find -lz: No such file or directory\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:14: build/tool] Error 1",
          2,
        );
        s.run(
          "Drop the -static flag so it links.",
          "sed -i 's/-static//' Makefile && make -s && file build/tool",
          "build/tool: ELF 64-bit LSB pie executable, x86-64, dynamically linked",
        );
        return s.fail(
          "The binary builds now.",
          tests(
            "/tests/test_build.py",
            ["test_static", "test_make_test"],
            [false, true],
            "E   AssertionError: build/tool is dynamically linked",
          ),
          null,
        );
      },
    },
    ["good", "bad"],
  ),
];
