import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const refused = (port: number) =>
  `curl: (7) Failed to connect to localhost port ${port} after 0 ms: Couldn't connect to server`;

export const servicePersistence: TaskSpec[] = familyTasks(
  "service-persistence",
  {
    id: "serve-static-docs",
    instruction:
      "The project in /app/docs is a small MkDocs site. Build it into /app/docs/site and serve the built site over HTTP on port 8080.\n" +
      "Keep the server running on port 8080 after you finish: the grader will request http://localhost:8080/ and http://localhost:8080/api/ and expects both pages with status 200.",
    bad: (rng) => {
      const s = new Script();
      s.run(
        "Let me look at the docs project.",
        "cd /app/docs && ls",
        "docs  mkdocs.yml  requirements.txt",
      );
      s.run(
        "Install MkDocs and build the site.",
        "pip install -q -r requirements.txt && mkdocs build -d site",
        "INFO    -  Cleaning site directory\nINFO    -  Building documentation to directory: /app/docs/site\nINFO    -  Documentation built in 0.41 seconds",
        0,
        9,
      );
      s.run(
        "Start a simple HTTP server for the built site in the background.",
        "python3 -m http.server 8080 --directory site &",
        `[1] ${rng.int(300, 900)}`,
      ).preFailure();
      s.run(
        "Check that the site is served.",
        "sleep 1; curl -s -o /dev/null -w '%{http_code}\\n' localhost:8080/ && curl -s -o /dev/null -w '%{http_code}\\n' localhost:8080/api/",
        `127.0.0.1 - - "GET / HTTP/1.1" 200 -\n200\n127.0.0.1 - - "GET /api/ HTTP/1.1" 200 -\n200`,
      ).evidence();
      return s.fail(
        "The documentation is built and served on port 8080; both / and /api/ return 200.",
        pytestOutput(
          "/tests/test_outputs.py",
          [
            ["test_site_built", true],
            ["test_root_served", false],
            ["test_api_page_served", false],
          ],
          `E   AssertionError: ${refused(8080)}`,
        ),
        "service-persistence",
      );
    },
    good: (rng) => {
      const s = new Script();
      s.run(
        "Inspect the project.",
        "cd /app/docs && cat mkdocs.yml",
        "site_name: Inventory API\nnav:\n  - Home: index.md\n  - API: api.md",
      );
      s.run(
        "Build the site.",
        "pip install -q -r requirements.txt && mkdocs build -d site",
        "INFO    -  Building documentation to directory: /app/docs/site\nINFO    -  Documentation built in 0.38 seconds",
        0,
        8,
      );
      s.run(
        "Launch the server detached from this shell so it survives the session, logging to a file.",
        "setsid nohup python3 -m http.server 8080 --directory /app/docs/site > /tmp/http.log 2>&1 < /dev/null &",
        `[1] ${rng.int(300, 900)}`,
      );
      s.run(
        "Probe it from a separate call.",
        "sleep 1; curl -sf localhost:8080/ | head -3; curl -s -o /dev/null -w '%{http_code}\\n' localhost:8080/api/",
        '<!doctype html>\n<html lang="en" class="no-js">\n  <head>\n200',
      ).evidence();
      return s.pass(
        "The site is built and served by a detached server on port 8080 (log in /tmp/http.log).",
        pytestOutput("/tests/test_outputs.py", [
          ["test_site_built", true],
          ["test_root_served", true],
          ["test_api_page_served", true],
        ]),
      );
    },
  },
  {
    id: "flask-kv-store-api",
    instruction:
      "Implement a key-value REST API with Flask in /app/app.py: PUT /kv/<key> stores the request body, GET /kv/<key> returns it (404 if missing).\n" +
      "Keep the server running on port 5000 after you finish; the tests will connect to http://127.0.0.1:5000.",
    bad: (rng) => {
      const s = new Script();
      s.run(
        "Write the Flask app.",
        "cat > /app/app.py <<'EOF'\nfrom flask import Flask, request, abort\napp = Flask(__name__)\nstore = {}\n@app.put('/kv/<key>')\ndef put(key):\n    store[key] = request.get_data(as_text=True)\n    return '', 204\n@app.get('/kv/<key>')\ndef get(key):\n    if key not in store:\n        abort(404)\n    return store[key]\nEOF",
        "",
      );
      s.run(
        "Run it in the background.",
        "cd /app && flask --app app run --port 5000 &",
        `[1] ${rng.int(200, 800)}\n * Serving Flask app 'app'\n * Running on http://127.0.0.1:5000`,
      ).preFailure();
      s.run(
        "Exercise both endpoints.",
        "curl -s -X PUT -d hello localhost:5000/kv/a -w '%{http_code}\\n'; curl -s localhost:5000/kv/a; echo; curl -s -o /dev/null -w '%{http_code}\\n' localhost:5000/kv/zz",
        "204\nhello\n404",
      ).evidence();
      return s.fail(
        "The API works: PUT stores, GET returns the value and 404 for unknown keys.",
        pytestOutput(
          "/tests/test_api.py",
          [
            ["test_put_get", false],
            ["test_missing_key", false],
          ],
          `E   requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=5000): Max retries exceeded`,
        ),
        "service-persistence",
      );
    },
    bad2: (rng) => {
      const s = new Script();
      s.run(
        "Create the app.",
        "cat > /app/app.py <<'EOF'\nfrom flask import Flask, request, abort\napp = Flask(__name__)\nstore = {}\n@app.route('/kv/<key>', methods=['GET', 'PUT'])\ndef kv(key):\n    if request.method == 'PUT':\n        store[key] = request.get_data(as_text=True)\n        return '', 204\n    return store.get(key) or abort(404)\nif __name__ == '__main__':\n    app.run(port=5000)\nEOF",
        "",
      );
      s.run(
        "Start it with nohup.",
        "cd /app && nohup python3 app.py &",
        `[1] ${rng.int(200, 800)}\nnohup: ignoring input and appending output to 'nohup.out'`,
      ).preFailure();
      s.run(
        "Smoke test.",
        "curl -s -X PUT -d v1 localhost:5000/kv/k1 -w '%{http_code}\\n' && curl -s localhost:5000/kv/k1",
        "204\nv1",
      ).evidence();
      return s.fail(
        "Done: the key-value API is running on port 5000.",
        pytestOutput(
          "/tests/test_api.py",
          [
            ["test_put_get", false],
            ["test_missing_key", false],
          ],
          "E   ConnectionRefusedError: [Errno 111] Connection refused",
        ),
        "service-persistence",
      );
    },
  },
  {
    id: "metrics-exporter-daemon",
    instruction:
      "Write a Prometheus exporter in /app/exporter.py that exposes the number of files in /data/inbox as the gauge `inbox_files` on /metrics.\n" +
      "Start it as a daemon listening on port 9105 and keep the server running on port 9105 after you finish.",
    good: (rng) => {
      const s = new Script();
      s.run(
        "Check the client library.",
        "python3 -c 'import prometheus_client, sys; print(prometheus_client.__version__)'",
        "0.21.1",
      );
      s.run(
        "Write the exporter.",
        "cat > /app/exporter.py <<'EOF'\nimport os, time\nfrom prometheus_client import Gauge, start_http_server\ng = Gauge('inbox_files', 'files in /data/inbox')\ng.set_function(lambda: len(os.listdir('/data/inbox')))\nstart_http_server(9105)\nwhile True:\n    time.sleep(60)\nEOF",
        "",
      );
      s.run(
        "Start it detached with its output redirected.",
        "setsid nohup python3 /app/exporter.py > /var/log/exporter.log 2>&1 < /dev/null & disown; echo started",
        "started",
      );
      s.run(
        "Probe the endpoint from a fresh call.",
        "sleep 1; curl -s localhost:9105/metrics | grep '^inbox_files'",
        `inbox_files ${rng.int(2, 40)}.0`,
      ).evidence();
      return s.pass(
        "The exporter runs detached on port 9105 and reports inbox_files.",
        pytestOutput("/tests/test_exporter.py", [
          ["test_metrics_endpoint", true],
          ["test_gauge_value", true],
        ]),
      );
    },
  },
);
