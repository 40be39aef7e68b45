import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { spec } from "./define.js";

/** The generic family: the agent stops without checking the artifact the verifier reads. */
export const stopWithoutCheck: TaskSpec[] = [
  spec(
    "stop-without-check",
    "positive",
    {
      id: "incident-report-json",
      instruction:
        "Summarise the incidents in /app/incidents.log into /app/report.json. The file must validate against the JSON schema in /app/report.schema.json (fields: total, by_severity, first_seen, last_seen).",
      bad: () => {
        const s = new Script();
        s.run(
          "Count incidents by severity.",
          "grep -oE 'severity=[a-z]+' /app/incidents.log | sort | uniq -c",
          "     41 severity=high\n    212 severity=low\n     97 severity=medium",
        ).evidence();
        s.run(
          "First and last timestamps.",
          "head -1 /app/incidents.log | cut -c1-20; tail -1 /app/incidents.log | cut -c1-20",
          "2026-09-01T00:14:09Z\n2026-09-30T23:51:47Z",
        );
        s.run(
          "Write the report.",
          'cat > /app/report.json <<\'EOF\'\n{"total": 350, "by_severity": {"high": 41, "medium": 97, "low": 212}, "first_seen": "2026-09-01T00:14:09Z", "last_seen": "2026-09-30T23:51:47Z",}\nEOF',
          "",
        ).preFailure();
        return s.fail(
          "Wrote /app/report.json with totals per severity.",
          pytestOutput(
            "/tests/test_report.py",
            [
              ["test_report_valid_json", false],
              ["test_schema", false],
            ],
            "E   json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 171",
          ),
          "stop-without-check",
        );
      },
      good: () => {
        const s = new Script();
        s.run(
          "Count incidents by severity.",
          "grep -oE 'severity=[a-z]+' /app/incidents.log | sort | uniq -c",
          "     41 severity=high\n    212 severity=low\n     97 severity=medium",
        ).evidence();
        s.run(
          "Build the report with jq so it is valid JSON.",
          'jq -n \'{total: 350, by_severity: {high: 41, medium: 97, low: 212}, first_seen: "2026-09-01T00:14:09Z", last_seen: "2026-09-30T23:51:47Z"}\' > /app/report.json',
          "",
        );
        s.run(
          "Validate against the schema.",
          "check-jsonschema --schemafile /app/report.schema.json /app/report.json",
          "ok -- validation done",
        );
        return s.pass(
          "report.json is written and validates against the schema.",
          pytestOutput("/tests/test_report.py", [
            ["test_report_valid_json", true],
            ["test_schema", true],
          ]),
        );
      },
    },
    ["bad", "good"],
  ),
  spec(
    "stop-without-check",
    "nearby-negative",
    {
      id: "sitemap-xml-generate",
      instruction:
        "Generate /app/public/sitemap.xml listing every HTML page under /app/public with its last modification date. The file must validate against the sitemap 0.9 XSD in /app/sitemap.xsd.",
      good: () => {
        const s = new Script();
        s.run(
          "Generate the sitemap.",
          "python3 /app/tools/mksitemap.py /app/public > /app/public/sitemap.xml && grep -c '<url>' /app/public/sitemap.xml",
          "27",
        ).evidence();
        s.run(
          "Validate it.",
          "xmllint --noout --schema /app/sitemap.xsd /app/public/sitemap.xml",
          "/app/public/sitemap.xml validates",
        );
        return s.pass(
          "sitemap.xml lists 27 pages and validates.",
          pytestOutput("/tests/test_sitemap.py", [
            ["test_valid", true],
            ["test_all_pages", true],
          ]),
        );
      },
    },
    ["good", "good"],
  ),
];
