"""Drives fire's Harbor adapter through one agent setup in the stand-in sandbox, then a
scripted client that reads the managed settings and runs each hook command inside it, or
(`realClient`) the real Claude Code / Codex client started as Harbor starts it (real_client.py).

Usage: python3 run_adapter.py '<json>' -> prints one JSON object (see the test)."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


async def main(cfg: dict) -> dict:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(cfg["adapterDir"])))
    import importlib

    from chroot_sandbox import ChrootSandbox  # noqa: E402

    out: dict = {}
    # the adapter under test, imported as Harbor does (module:Class, from PYTHONPATH)
    module = importlib.import_module(cfg.get("module", "fire_harbor_agent"))
    default_cls = "FireClaudeCode" if cfg.get("harness", "claude") == "claude" else "FireCodex"
    cls = getattr(module, cfg.get("cls", default_cls))
    cfg["harness"] = cls.FIRE_HARNESS
    logs_dir = Path(cfg["logsDir"])
    kwargs = {k: v for k, v in cfg.get("kwargs", {}).items()}
    try:
        agent = cls(logs_dir=logs_dir, model_name="standin/model", **kwargs)
    except Exception as exc:  # the adapter refused on the host
        return {"stage": "init", "error": str(exc)}
    out["ignoredKwargs"] = sorted(agent.ignored_kwargs)
    root = Path(tempfile.mkdtemp(prefix="fire-sandbox-"))
    real = cfg.get("realClient")
    env = ChrootSandbox(
        root,
        node=cfg.get("node", "image"),
        default_user=cfg.get("user"),
        corrupt=cfg.get("corrupt"),
        binds={"/opt/rc-clients": real["clients"]} if real else None,
    )
    await env.start()
    try:
        try:
            await agent.setup(env)
        except Exception as exc:
            out.update({"stage": "setup", "error": str(exc)})
            return out
        out["stage"] = "run"
        out["client"] = (root / "installed-agent" / "client").read_text().strip()
        out["uploads"] = env.uploads
        record = logs_dir / "fire-delivery.json"
        out["delivery"] = json.loads(record.read_text()) if record.exists() else None
        settings_path = {
            "claude": "/etc/claude-code/managed-settings.json",
            "codex": "/etc/codex/requirements.toml",
        }[cfg["harness"]]
        host = env.host_path(settings_path)
        settings = None
        if host.exists():
            text = host.read_text()
            settings = json.loads(text) if settings_path.endswith(".json") else tomllib.loads(text)
        answers = []
        if real:  # the real client, started as Harbor starts it, instead of the scripted one
            from real_client import run_real_client  # noqa: E402

            out.update(await run_real_client(env, cfg["harness"], real))
        for i, event in enumerate([] if real else cfg.get("events", [])):
            groups = (settings or {}).get("hooks", {}).get(event["hook_event_name"], [])
            answer = None
            for group in groups:
                for h in group.get("hooks", []):
                    ev = f"/tmp/event-{i}.json"
                    env.host_path(ev).write_text(json.dumps(event))
                    r = await env.exec(f"sh -c {shlex.quote(h['command'])} < {ev}")  # as the agent user, in the sandbox
                    if r.return_code != 0:
                        answers.append({"error": r.stderr})
                        continue
                    if (r.stdout or "").strip():
                        answer = json.loads(r.stdout)
            answers.append(answer)
        out["answers"] = answers

        def lines(p: str) -> list:
            f = env.host_path(p)
            return [json.loads(l) for l in f.read_text().splitlines() if l.strip()] if f.exists() else []

        out["hookLog"] = lines("/logs/agent/fire-hook-log.jsonl")
        out["sandboxLog"] = lines("/logs/agent/fire-sandbox.jsonl")
        node = env.host_path("/fire/node/glibc/node")
        out["uploadedNode"] = node.exists()
        out["modes"] = {
            p: oct(env.host_path(p).stat().st_mode & 0o777)
            for p in ("/fire/payload/fire-hook.sh", "/fire/node/glibc/node", settings_path)
            if env.host_path(p).exists()
        }
        return out
    finally:
        if cfg.get("downloadTo"):  # Harbor's download of /logs/agent for non-mounted envs
            import shutil

            shutil.copytree(env.host_path("/logs/agent"), cfg["downloadTo"], dirs_exist_ok=True)
        env.stop()
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
