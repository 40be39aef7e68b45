import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const ls = (db: string) =>
  `-rw-r--r-- 1 app app  98304 Oct 11 23:58 ${db}\n-rw-r--r-- 1 app app  32768 Oct 11 23:59 ${db}-shm\n-rw-r--r-- 1 app app 412032 Oct 11 23:59 ${db}-wal`;

export const databaseEvidence: TaskSpec[] = familyTasks(
  "database-evidence",
  {
    id: "recover-sqlite-orders",
    instruction:
      "The order service crashed and /app/data/app.db looks damaged. Recover every row of the `orders` table from the SQLite database (the service runs in WAL mode; the latest orders may not be in the main file yet) and write them to /app/recovered_orders.csv with a header row.",
    bad: () => {
      const s = new Script();
      s.run("See what is in the data directory.", "ls -l /app/data", ls("app.db"));
      s.run(
        "Check the database integrity first.",
        "sqlite3 /app/data/app.db 'PRAGMA integrity_check; SELECT count(*) FROM orders;'",
        "ok\n1204",
      )
        .preFailure()
        .evidence();
      s.run(
        "Take a backup before exporting.",
        "cp /app/data/app.db /tmp/app.db.bak && ls -l /app/data",
        "-rw-r--r-- 1 app app 512000 Oct 12 08:14 app.db",
      );
      s.run(
        "Export the table.",
        "sqlite3 -header -csv /app/data/app.db 'SELECT * FROM orders ORDER BY id' > /app/recovered_orders.csv && wc -l /app/recovered_orders.csv",
        "1205 /app/recovered_orders.csv",
      );
      return s.fail(
        "Recovered 1204 orders to /app/recovered_orders.csv.",
        pytestOutput(
          "/tests/test_recovery.py",
          [
            ["test_header", true],
            ["test_row_count", false],
            ["test_latest_orders", false],
          ],
          "E   assert 1204 == 1317",
        ),
        "database-evidence",
      );
    },
    good: () => {
      const s = new Script();
      s.run("List the database files; WAL sidecars are present.", "ls -l /app/data", ls("app.db"));
      s.run(
        "Copy the database with its -wal and -shm files before opening anything.",
        "mkdir -p /tmp/backup && cp -a /app/data/app.db /app/data/app.db-wal /app/data/app.db-shm /tmp/backup/ && sha256sum /tmp/backup/* | cut -c1-16",
        "9f2b6c1e0a7d4e55\n31c0aa9e8d2f7b10\n7e4d1c9a5b3f2e08",
      );
      s.run(
        "Work on the copy: recover and count.",
        "cd /tmp/backup && sqlite3 app.db '.recover' | sqlite3 /tmp/rec.db && sqlite3 /tmp/rec.db 'SELECT count(*) FROM orders'",
        "1317",
      ).evidence();
      s.run(
        "Export with a header.",
        "sqlite3 -header -csv /tmp/rec.db 'SELECT * FROM orders ORDER BY id' > /app/recovered_orders.csv && wc -l < /app/recovered_orders.csv",
        "1318",
      );
      return s.pass(
        "Recovered all 1317 orders (including WAL-only rows) from a byte copy.",
        pytestOutput("/tests/test_recovery.py", [
          ["test_header", true],
          ["test_row_count", true],
          ["test_latest_orders", true],
        ]),
      );
    },
  },
  {
    id: "recover-deleted-invoices",
    instruction:
      "Someone ran `DELETE FROM invoices WHERE year = 2023` on /srv/billing/billing.sqlite by mistake. Recover the deleted 2023 invoices from the SQLite database file (freelist pages and the WAL may still hold them) and write their ids, one per row, to /app/invoice_ids.txt. Do not modify the evidence.",
    bad: () => {
      const s = new Script();
      s.run("Look at the files.", "ls -l /srv/billing", ls("billing.sqlite"));
      s.run(
        "Open the database in Python to inspect the schema.",
        "python3 -c \"import sqlite3; c=sqlite3.connect('/srv/billing/billing.sqlite'); print(c.execute('select count(*) from invoices').fetchone())\"",
        "(2211,)",
      )
        .preFailure()
        .evidence();
      s.run(
        "Scan for deleted records with the recover command.",
        "sqlite3 /srv/billing/billing.sqlite '.recover' | grep -c 'INSERT INTO \"lost_and_found\"'",
        "0",
      );
      s.run(
        "Fall back to string carving.",
        "strings /srv/billing/billing.sqlite | grep -Eo 'INV-2023-[0-9]{5}' | sort -u > /app/invoice_ids.txt; wc -l < /app/invoice_ids.txt",
        "12",
      );
      return s.fail(
        "Found 12 deleted 2023 invoice ids.",
        pytestOutput(
          "/tests/test_invoices.py",
          [
            ["test_ids_recovered", false],
            ["test_evidence_untouched", false],
          ],
          "E   assert 12 == 187\nE   AssertionError: billing.sqlite-wal was checkpointed (size 0)",
        ),
        "database-evidence",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run("Check the files.", "ls -l /srv/billing", ls("billing.sqlite"));
      s.run(
        "Run an integrity check and vacuum into a scratch file.",
        "sqlite3 /srv/billing/billing.sqlite 'PRAGMA integrity_check;' && sqlite3 /srv/billing/billing.sqlite \"VACUUM INTO '/tmp/b.sqlite'\"",
        "ok",
      )
        .preFailure()
        .evidence();
      s.run(
        "Carve the copy.",
        "strings /tmp/b.sqlite | grep -Eo 'INV-2023-[0-9]{5}' | sort -u > /app/invoice_ids.txt; wc -l < /app/invoice_ids.txt",
        "0",
      );
      return s.fail(
        "No deleted invoices could be recovered; the pages were already reused.",
        pytestOutput(
          "/tests/test_invoices.py",
          [
            ["test_ids_recovered", false],
            ["test_evidence_untouched", false],
          ],
          "E   assert 0 == 187",
        ),
        "database-evidence",
      );
    },
  },
  {
    id: "sqlite-audit-log-export",
    instruction:
      "Recover the audit trail from the SQLite database /var/lib/auditd/audit.db (WAL mode, copied from a live host) and export the `events` rows from the last 24 hours to /app/events.jsonl, one JSON object per line. Leave the original database files untouched.",
    good: () => {
      const s = new Script();
      s.run("Inspect the files.", "ls -l /var/lib/auditd", ls("audit.db"));
      s.run(
        "Byte-copy the database and its sidecars first.",
        "mkdir -p /tmp/ev && cp -a /var/lib/auditd/audit.db /var/lib/auditd/audit.db-wal /var/lib/auditd/audit.db-shm /tmp/ev/ && ls /tmp/ev",
        "audit.db\naudit.db-shm\naudit.db-wal",
      );
      s.run(
        "Query the copy.",
        "sqlite3 /tmp/ev/audit.db \"SELECT count(*) FROM events WHERE ts >= strftime('%s','now','-1 day')\"",
        "842",
      ).evidence();
      s.run(
        "Export as JSON lines.",
        "sqlite3 -json /tmp/ev/audit.db \"SELECT * FROM events WHERE ts >= strftime('%s','now','-1 day')\" | python3 -c 'import json,sys; [print(json.dumps(r)) for r in json.load(sys.stdin)]' > /app/events.jsonl && wc -l < /app/events.jsonl",
        "842",
      );
      return s.pass(
        "Exported 842 events from a copy; the originals are untouched.",
        pytestOutput("/tests/test_export.py", [
          ["test_count", true],
          ["test_originals_untouched", true],
        ]),
      );
    },
  },
);
