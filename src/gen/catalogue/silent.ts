import { Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { spec } from "./define.js";
import { simplePass, tests } from "./silent-helpers.js";

/** Ordinary tasks no family policy should route to, with mixed outcomes. */
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
          "Search the position for the forced mate.",
          [
            ["cat /app/position.fen", "5r1k/6pp/7N/8/2Q5/8/5PPP/6K1 w - - 0 1"],
            [
              'python3 /app/tools/mate_search.py --fen "$(cat /app/position.fen)" --plies 3',
              "searched 48211 nodes\nmate in 2: c4g8 f8g8 h6f7",
            ],
            [
              "printf 'c4g8\\nf8g8\\nh6f7\\n' > /app/solution.txt; cat /app/solution.txt",
              "c4g8\nf8g8\nh6f7",
            ],
          ],
          "Found the mate in two (Qg8+ Rxg8 Nf7#, smothered) and wrote the three moves.",
          tests("/tests/test_solution.py", ["test_line_is_mate"], true),
        ),
      bad: () => {
        const s = new Script();
        s.run(
          "Read the position.",
          "cat /app/position.fen",
          "5r1k/6pp/7N/8/2Q5/8/5PPP/6K1 w - - 0 1",
        );
        s.run(
          "Play the knight check.",
          "printf 'h6f7\\n' > /app/solution.txt && cat /app/solution.txt",
          "h6f7",
        );
        return s.fail(
          "Nf7 wins; wrote the solution.",
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
];
