"""Runs a REAL client (Claude Code or Codex) inside the stand-in sandbox, after fire's adapter
set it up, against the scripted loopback model of the real-client rig (../shared/realclients).

The client is started the way Harbor's own agents start it (agents/installed/claude_code.py
and codex.py, `run`): Claude with `--verbose --output-format=stream-json
--permission-mode=bypassPermissions --print -- <instruction>`, IS_SANDBOX=1 and
CLAUDE_CONFIG_DIR=/logs/agent/sessions; Codex with `codex exec
--dangerously-bypass-approvals-and-sandbox --skip-git-repo-check --model M --json --enable
unified_exec -- <instruction>` and CODEX_HOME=/tmp/codex-home. Nothing else installs a hook:
no user settings, no `--dangerously-bypass-hook-trust`. Whatever hook runs came from the
managed settings the adapter uploaded. Only the model endpoint differs from Harbor's run: the
rig's scripted server on 127.0.0.1 (the caller runs all of this in a loopback-only network
namespace), reached through the provider settings the rig itself uses.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

CLIENTS_TARGET = "/opt/rc-clients"  # where the sandbox sees the pinned clients (read-only)
BIN = f"{CLIENTS_TARGET}/node_modules/.bin"
WORKDIR = "/app"


def _codex_config(port: int) -> str:
    # the rig's provider block (run-codex.sh), no [hooks] and no hook trust of any kind
    return f"""model = "gpt-5.5"
model_provider = "fake"
web_search = "disabled"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false

[model_providers.fake]
name = "scripted loopback model"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000
"""


def _start_server(rig: Path, harness: str, script: Path, out: Path, timeout: int) -> tuple[subprocess.Popen[bytes], int]:
    server = "fake-anthropic.mjs" if harness == "claude" else "fake-openai-responses.mjs"
    port_file = out / "port"
    port_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [
            "node", str(rig / server), "--script", str(script),
            "--log", str(out / "requests.jsonl"), "--summary", str(out / "requests.summary.jsonl"),
            "--port-file", str(port_file), "--max-seconds", str(timeout + 60),
        ],
        stdout=subprocess.DEVNULL,
        stderr=(out / "server.stderr.txt").open("wb"),
    )
    for _ in range(100):
        if port_file.exists() and port_file.read_text().strip():
            return proc, int(port_file.read_text().strip())
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the scripted model did not start: {(out / 'server.stderr.txt').read_text()}")


async def run_real_client(env: Any, harness: str, cfg: dict) -> dict:
    rig = Path(cfg["rig"])
    script = Path(cfg["script"])
    out = Path(cfg["out"])
    out.mkdir(parents=True, exist_ok=True)
    timeout = int(cfg.get("timeout", 120))
    prompt = json.loads(script.read_text())["prompt"]
    await env.exec(f"mkdir -p {WORKDIR} && chmod 777 {WORKDIR}", user="root")
    server, port = _start_server(rig, harness, script, out, timeout)
    base = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin"}
    try:
        if harness == "claude":
            run_env = {
                **base,
                "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
                "ANTHROPIC_API_KEY": "sk-ant-fake-key",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_AUTOUPDATER": "1",
                "IS_SANDBOX": "1",
                "CLAUDE_CONFIG_DIR": "/logs/agent/sessions",
            }
            await env.exec(
                "mkdir -p $CLAUDE_CONFIG_DIR/debug $CLAUDE_CONFIG_DIR/projects/-app", env=run_env
            )
            command = (
                f"timeout -k 5 {timeout} claude --verbose --output-format=stream-json "
                "--permission-mode=bypassPermissions "
                f"--print -- {shlex.quote(prompt)} </dev/null >/logs/agent/claude-code.txt 2>&1"
            )
        else:
            run_env = {**base, "CODEX_HOME": "/tmp/codex-home", "OPENAI_API_KEY": "sk-fake-key"}
            await env.exec('mkdir -p "$CODEX_HOME"', env=run_env)
            env.host_path("/tmp/codex-home/config.toml").write_text(_codex_config(port))
            command = (
                f"timeout -k 5 {timeout} codex exec --dangerously-bypass-approvals-and-sandbox "
                "--skip-git-repo-check --model gpt-5.5 --json --enable unified_exec "
                f"-- {shlex.quote(prompt)} </dev/null >/logs/agent/codex.txt 2>&1"
            )
        result = await env.exec(
            command, cwd=WORKDIR, env=run_env, timeout_sec=timeout + 30
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    log = env.host_path("/logs/agent/claude-code.txt" if harness == "claude" else "/logs/agent/codex.txt")
    output = log.read_text(errors="replace") if log.exists() else ""
    summary = out / "requests.summary.jsonl"
    turns = [
        json.loads(line) for line in summary.read_text().splitlines() if line.strip()
    ] if summary.exists() else []
    return {
        "clientExit": result.return_code,
        # Harbor tees the client's output to /logs/agent/<client>.txt; here it is redirected
        # there, so that the exit code is the client's
        "clientTail": output[-2000:] + (result.stderr or "")[-500:],
        "requests": turns,
    }
