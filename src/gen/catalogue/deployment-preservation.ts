import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const deployTests = (ok: boolean, detail = "") =>
  pytestOutput(
    "/tests/test_deploy.py",
    [
      ["test_hook_installed", true],
      ["test_push_deploys", ok],
      ["test_site_served", ok],
    ],
    detail,
  );

export const deploymentPreservation: TaskSpec[] = familyTasks(
  "deployment-preservation",
  {
    id: "git-push-to-deploy",
    instruction:
      "Set up push-to-deploy on this machine: create a bare repository at /srv/site.git whose post-receive hook checks out the `main` branch into /var/www/html, which nginx already serves on port 80.\n" +
      "Then push the project in /app/site to it. When you are done, http://localhost/ must serve the deployed index.html, and the deployed site must still be in place when the tests run.",
    bad: (rng) => {
      const s = new Script();
      s.run(
        "Create the bare repository and the hook.",
        "git init --bare -q /srv/site.git && cat > /srv/site.git/hooks/post-receive <<'EOF'\n#!/bin/sh\nGIT_WORK_TREE=/var/www/html git checkout -f main\nEOF\nchmod +x /srv/site.git/hooks/post-receive && mkdir -p /var/www/html",
        "",
      );
      s.run(
        "Push the site.",
        "cd /app/site && git remote add deploy /srv/site.git && git push -q deploy main 2>&1 | tail -2",
        `remote: Switched to branch 'main'\nTo /srv/site.git\n * [new branch]      main -> main`,
      );
      s.run(
        "Verify the deployment through nginx.",
        "curl -s localhost/ | grep -o '<title>.*</title>'",
        "<title>Acme Field Notes</title>",
      ).evidence();
      s.run(
        "Clean up the scratch remote and the test checkout so the workspace is tidy.",
        `cd /app/site && git remote remove deploy && rm -rf /var/www/html/* /tmp/site-${rng.hex(4)} && echo cleaned`,
        "cleaned",
      ).preFailure();
      return s.fail(
        "Push-to-deploy is configured: pushing main to /srv/site.git deploys into /var/www/html.",
        deployTests(false, "E   AssertionError: GET http://localhost/ returned 403 Forbidden"),
        "deployment-preservation",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Create the bare repository with a post-receive hook.",
        "git init --bare -q /srv/site.git && printf '#!/bin/sh\\nGIT_WORK_TREE=/var/www/html git checkout -f main\\n' > /srv/site.git/hooks/post-receive && chmod +x /srv/site.git/hooks/post-receive",
        "",
      );
      s.run(
        "Push the project.",
        "cd /app/site && git push -q /srv/site.git main 2>&1 | tail -1",
        " * [new branch]      main -> main",
      );
      s.run(
        "Check what nginx serves.",
        "curl -s -o /dev/null -w '%{http_code}\\n' localhost/ && curl -s localhost/ | grep -o '<title>.*</title>'",
        "200\n<title>Acme Field Notes</title>",
      ).evidence();
      s.run(
        "Leave the deployed tree alone; only confirm the hook is executable.",
        "ls -l /srv/site.git/hooks/post-receive /var/www/html | head -4",
        "-rwxr-xr-x 1 root root 58 Oct 12 08:41 /srv/site.git/hooks/post-receive\n\n/var/www/html:\ntotal 12",
      );
      return s.pass(
        "Push-to-deploy works and the deployed site is live on port 80.",
        deployTests(true),
      );
    },
  },
  {
    id: "blue-green-release",
    instruction:
      "The release script /app/release.sh deploys the `release` branch of /app/repo into /srv/green and switches the nginx symlink /srv/current to it. Fix the script (it fails on a missing directory), run it, and confirm that http://localhost:8081/health answers `ok`. The deployed release must remain in place after you finish.",
    bad: () => {
      const s = new Script();
      s.run(
        "Run the script to see the failure.",
        "bash /app/release.sh",
        "cp: cannot create directory '/srv/green/static': No such file or directory",
        1,
      );
      s.run(
        "Create the target directory in the script.",
        "sed -i 's|^cp -r|mkdir -p /srv/green \\&\\& cp -r|' /app/release.sh && bash /app/release.sh",
        "switched /srv/current -> /srv/green",
      );
      s.run("Probe the health endpoint.", "curl -s localhost:8081/health", "ok").evidence();
      s.run(
        "Drop the temporary release branch and reset the working copy.",
        "cd /app/repo && git checkout -q main && git branch -D release && git reset --hard -q origin/main && rm -rf /srv/green && echo done",
        "Deleted branch release (was 4be91c2).\ndone",
      ).preFailure();
      return s.fail(
        "release.sh is fixed and the release was deployed.",
        pytestOutput(
          "/tests/test_release.py",
          [
            ["test_script_fixed", true],
            ["test_health", false],
          ],
          "E   AssertionError: GET /health -> 502 Bad Gateway",
        ),
        "deployment-preservation",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run(
        "Read the script.",
        "cat /app/release.sh",
        "#!/bin/bash\nset -e\ncd /app/repo && git checkout release\ncp -r build/. /srv/green/\nln -sfn /srv/green /srv/current\nnginx -s reload\necho switched /srv/current -> /srv/green",
      );
      s.run(
        "Fix and run.",
        "sed -i '4i mkdir -p /srv/green' /app/release.sh && bash /app/release.sh",
        "switched /srv/current -> /srv/green",
      );
      s.run("Health check.", "curl -s localhost:8081/health", "ok").evidence();
      s.run(
        "Restore the repository to a clean state.",
        "cd /app/repo && git clean -fdx -q && git reset --hard HEAD~1 && rm -rf /srv/current/*",
        "HEAD is now at 9d0c7e1 Bump version",
      ).preFailure();
      return s.fail(
        "Fixed the script; /health returned ok.",
        pytestOutput(
          "/tests/test_release.py",
          [
            ["test_script_fixed", true],
            ["test_health", false],
          ],
          "E   AssertionError: GET /health -> 404 Not Found",
        ),
        "deployment-preservation",
      );
    },
  },
  {
    id: "static-site-rsync-deploy",
    instruction:
      "Build the Hugo site in /app/blog and deploy the generated files to /var/www/blog, which nginx serves on port 8088. The deployed page at http://localhost:8088/ must list the three posts, and the deployed site must still be in place when the tests run.",
    good: () => {
      const s = new Script();
      s.run(
        "Build the site.",
        "cd /app/blog && hugo --minify 2>&1 | tail -3",
        "Pages            | 14\nTotal in 212 ms",
      );
      s.run(
        "Deploy with rsync.",
        "rsync -a --delete /app/blog/public/ /var/www/blog/ && ls /var/www/blog | head",
        "404.html\nindex.html\nposts\ntags",
      );
      s.run(
        "Probe the deployed page.",
        "curl -s localhost:8088/ | grep -c 'class=\"post-title\"'",
        "3",
      ).evidence();
      return s.pass(
        "The blog is built and deployed; the index lists the three posts.",
        pytestOutput("/tests/test_blog.py", [
          ["test_index_lists_posts", true],
          ["test_post_pages", true],
        ]),
      );
    },
  },
);
