import { Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { spec } from "./define.js";
import { simplePass, tests } from "./silent-helpers.js";

/** Silent tasks about repositories and builds (merge, Makefile). */
export const repoTasks: TaskSpec[] = [
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
