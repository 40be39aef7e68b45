import { Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { spec } from "./define.js";
import { providerFault, simplePass, tests } from "./silent-helpers.js";

/** Silent tasks whose failures are excluded from mining: capability gaps and a provider fault. */
export const faultTasks: TaskSpec[] = [
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
        for (let i = 0; i < 3; i++) {
          s.run(
            "Brute-force another bit-packing hypothesis.",
            `python3 /tmp/bitscan.py --width ${9 + i} /app/blob.xpk | head -c 120`,
            `\u0003\u0019x\u0000\u00ff${rng.alnum(40)}`,
            0,
            120,
          );
        }
        // The same failing check, again and again, until the harness gives up.
        for (let i = 0; i < 3; i++) {
          s.run(
            "Decode with the current guess and check the hash.",
            "python3 /tmp/decode.py /app/blob.xpk > /app/recovered.txt && sha256sum -c /app/expected.sha256",
            "/app/recovered.txt: FAILED\nsha256sum: WARNING: 1 computed checksum did NOT match",
            1,
            90,
          );
        }
        // An unchanged retry loop until the deadline is no capability gap: a rule on loops or
        // time could still act. Not procedural (no evidence it could be solved): for review.
        const a = s.fail(
          "",
          tests(
            "/tests/test_recovery.py",
            ["test_sha256"],
            false,
            "E   AssertionError: sha256 mismatch",
          ),
          null,
        );
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
];
