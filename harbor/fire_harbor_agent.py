"""fire's Harbor agent adapter: a screen arm's hook payload, delivered into any Harbor environment.

Harbor's cloud environments (Daytona, Modal, E2B, Runloop, GKE, ...) do not bind-mount host
paths, so `--mounts` cannot bring fire's hook into their sandboxes. This adapter wraps Harbor's
own Claude Code and Codex agents and, in `setup(environment)`, after Harbor installed the
client, copies the payload in through the environment's own `upload_dir` / `upload_file`, checks
every file's SHA-256 inside the sandbox (`exec`), writes the harness settings where the client
reads them (its managed layer, which needs no trust step), and brings a Node runtime when the
image has none recent enough. It uses only Harbor's public agent and environment methods.

fire runs it as (see `fire screen run --env`; this file's folder on PYTHONPATH):

    harbor run ... --agent-import-path fire_harbor_agent:FireClaudeCode \
        --ak fire_payload=/abs/screens/NAME/payload/ARM \
        --ak fire_payload_sha256=<sha256 of that folder's payload.json> \
        --ak fire_node=/abs/screens/NAME/payload/node

An arm without a hook (baseline) runs the same class without `fire_payload`: the agent is
installed and run exactly as Harbor's own, nothing is delivered.

What it leaves for fire to check (both come back in the trial's `agent/` folder):
- `fire-delivery.json`, written on the host into the trial's agent logs folder: what was
  delivered, the hashes verified inside the sandbox, where node came from, and the sandbox id;
- the payload launcher appends `{"sandbox": "<id>"}` to `/logs/agent/fire-sandbox.jsonl` on
  every hook call, reading the id from `/fire/sandbox-id`, a file that only exists inside
  the sandbox. A matching id proves the hook command ran there.

Any failure raises (the trial fails in agent setup, with the reason) instead of running an
agent whose hook would silently never act.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import uuid
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.agents.installed.claude_code import ClaudeCode
from harbor.agents.installed.codex import Codex

PAYLOAD_FORMAT = "fire-hook-payload/1"
PAYLOAD_TARGET = "/fire/payload"
NODE_TARGET = "/fire/node"
SANDBOX_ID_FILE = "/fire/sandbox-id"
MANIFEST = "payload.json"
RUNTIMES = "runtimes.json"
DELIVERY_RECORD = "fire-delivery.json"
# The hook bundle is built and tested on Node 20 (fire's own engines field).
MIN_NODE_MAJOR = 20
# harness -> (settings file in the payload, where the client reads it in the sandbox)
SETTINGS = {
    "claude": ("claude-settings.json", "/etc/claude-code/managed-settings.json"),
    "codex": ("codex-requirements.toml", "/etc/codex/requirements.toml"),
}
_HEX64 = set("0123456789abcdef")


class FirePayloadError(RuntimeError):
    """The payload could not be delivered or verified; the trial must not run without it."""


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX64


def _safe_name(name: Any) -> bool:
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
    )


def _hash_command(paths: list[str]) -> str:
    """Prints `<sha256> <path>` per file with whatever the image has; `none` when nothing."""
    quoted = " ".join(shlex.quote(p) for p in paths)
    return (
        "if command -v sha256sum >/dev/null 2>&1; then sha256sum -- "
        + quoted
        + "; elif command -v openssl >/dev/null 2>&1; then for f in "
        + quoted
        + '; do printf "%s %s\\n" "$(openssl dgst -sha256 -r "$f" | cut -d" " -f1)" "$f"; done'
        + "; else echo none; fi"
    )


class _FireDelivery:
    """The delivery, mixed into a Harbor installed agent (before it in the MRO)."""

    FIRE_HARNESS = ""

    def __init__(
        self,
        *args: Any,
        fire_payload: str | None = None,
        fire_payload_sha256: str | None = None,
        fire_node: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._fire_payload = Path(fire_payload) if fire_payload else None
        self._fire_node = Path(fire_node) if fire_node else None
        super().__init__(*args, **kwargs)
        self._fire_manifest = (
            self._fire_check_host_payload(fire_payload_sha256)
            if self._fire_payload is not None
            else None
        )

    # -- on the host, before any sandbox exists -------------------------------------------

    def _fire_check_host_payload(self, pinned: str | None) -> dict[str, Any]:
        """The manifest, checked against its pin, and every file against the manifest."""
        folder = self._fire_payload
        assert folder is not None
        manifest_path = folder / MANIFEST
        if not manifest_path.is_file():
            raise FirePayloadError(f"fire payload: {manifest_path} is missing")
        if not _is_sha256(pinned):
            raise FirePayloadError(
                "fire payload: fire_payload_sha256 (the sha256 of payload.json) is missing"
            )
        actual = _sha256_file(manifest_path)
        if actual != pinned:
            raise FirePayloadError(
                f"fire payload: {manifest_path} has sha256 {actual}, the run pinned {pinned}"
            )
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != PAYLOAD_FORMAT:
            raise FirePayloadError(f"fire payload: {manifest_path} is not {PAYLOAD_FORMAT}")
        if manifest.get("harness") != self.FIRE_HARNESS:
            raise FirePayloadError(
                f"fire payload: {manifest_path} is for {manifest.get('harness')}, "
                f"this agent is {self.FIRE_HARNESS}"
            )
        files = manifest.get("files")
        if not isinstance(files, dict) or not files:
            raise FirePayloadError(f"fire payload: {manifest_path} lists no files")
        settings_file = SETTINGS[self.FIRE_HARNESS][0]
        if settings_file not in files:
            raise FirePayloadError(
                f"fire payload: {manifest_path} does not list the settings {settings_file}"
            )
        for name, digest in files.items():
            if not _safe_name(name) or not _is_sha256(digest):
                raise FirePayloadError(f"fire payload: bad entry {name!r} in {manifest_path}")
            path = folder / name
            if not path.is_file():
                raise FirePayloadError(f"fire payload: {path} is missing")
            if _sha256_file(path) != digest:
                raise FirePayloadError(f"fire payload: {path} fails its sha256 check")
        return manifest

    def _fire_runtimes(self) -> list[dict[str, Any]]:
        if self._fire_node is None:
            return []
        index = self._fire_node / RUNTIMES
        if not index.is_file():
            raise FirePayloadError(f"fire payload: {index} is missing")
        entries = json.loads(index.read_text()).get("runtimes", [])
        return [e for e in entries if isinstance(e, dict)]

    # -- in the sandbox ----------------------------------------------------------------------

    async def _fire_exec(self, environment: Any, command: str, *, root: bool = True) -> str:
        result = await environment.exec(command=command, user="root" if root else None)
        if result.return_code != 0:
            raise FirePayloadError(
                f"fire payload: `{command[:200]}` failed in the sandbox "
                f"(exit {result.return_code}): {(result.stderr or result.stdout or '').strip()[-400:]}"
            )
        return result.stdout or ""

    async def _fire_verify(self, environment: Any, expected: dict[str, str]) -> None:
        """Checks each sandbox path's sha256 inside the sandbox; raises on any mismatch."""
        out = await self._fire_exec(environment, _hash_command(list(expected)))
        if out.strip() == "none":
            raise FirePayloadError(
                "fire payload: the sandbox has neither sha256sum nor openssl to verify it"
            )
        seen: dict[str, str] = {}
        for line in out.splitlines():
            parts = line.strip().split(None, 1)
            if len(parts) == 2:
                seen[parts[1].lstrip("*")] = parts[0].lower()
        for path, digest in expected.items():
            if seen.get(path) != digest:
                raise FirePayloadError(
                    f"fire payload: {path} in the sandbox has sha256 {seen.get(path)}, "
                    f"expected {digest}"
                )

    async def _fire_ensure_node(self, environment: Any) -> dict[str, Any]:
        """A node the hook can run: the image's when recent enough, else an uploaded one."""
        probe = await self._fire_exec(
            environment,
            "if ls /lib/ld-musl-* >/dev/null 2>&1; then echo musl; else echo glibc; fi; "
            "uname -m; "
            "if command -v node >/dev/null 2>&1; then "
            "node -e 'process.stdout.write(process.versions.node)' 2>/dev/null || echo broken; "
            "else echo none; fi",
            root=False,
        )
        lines = [line.strip() for line in probe.splitlines() if line.strip()]
        libc, arch = lines[0], lines[1]
        found = lines[2] if len(lines) > 2 else "none"
        try:
            major = int(found.split(".")[0])
        except ValueError:
            major = 0
        if major >= MIN_NODE_MAJOR:
            return {"source": "image", "version": found, "libc": libc, "arch": arch}
        runtime = next(
            (
                r
                for r in self._fire_runtimes()
                if r.get("libc") == libc and r.get("arch") == arch
            ),
            None,
        )
        if runtime is None:
            raise FirePayloadError(
                f"fire payload: the sandbox ({libc}, {arch}) has no node >= {MIN_NODE_MAJOR} "
                f"(found: {found}) and fire brought no {libc} {arch} node runtime; set "
                f"FIRE_PAYLOAD_NODE_{libc.upper()} to a Linux {libc} node binary for {arch}"
            )
        assert self._fire_node is not None
        packed = self._fire_node / str(runtime["file"])
        if not _safe_name(runtime.get("file")) or _sha256_file(packed) != runtime.get("gzSha256"):
            raise FirePayloadError(f"fire payload: {packed} fails its sha256 check")
        target_dir = f"{NODE_TARGET}/{libc}"
        target = f"{target_dir}/node"
        await self._fire_exec(environment, f"mkdir -p {shlex.quote(target_dir)}")
        await environment.upload_file(packed, f"{target}.gz")
        await self._fire_exec(
            environment,
            f"gzip -dc {shlex.quote(target + '.gz')} > {shlex.quote(target)} && "
            f"rm -f {shlex.quote(target + '.gz')} && chmod 755 {shlex.quote(target)}",
        )
        await self._fire_verify(environment, {target: str(runtime["sha256"])})
        version = (
            await self._fire_exec(
                environment,
                f"{shlex.quote(target)} -e 'process.stdout.write(process.versions.node)'",
                root=False,
            )
        ).strip()
        return {
            "source": "uploaded",
            "version": version,
            "libc": libc,
            "arch": arch,
            "imageNode": found,
            "path": target,
            "sha256": runtime["sha256"],
        }

    async def _fire_deliver(self, environment: Any) -> dict[str, Any]:
        folder = self._fire_payload
        manifest = self._fire_manifest
        assert folder is not None and manifest is not None
        settings_file, settings_target = SETTINGS[self.FIRE_HARNESS]
        files: dict[str, str] = manifest["files"]
        await self._fire_exec(
            environment,
            f"rm -rf {PAYLOAD_TARGET} {SANDBOX_ID_FILE} && mkdir -p {PAYLOAD_TARGET} "
            f"{shlex.quote(str(PurePosixPath(settings_target).parent))}",
        )
        await environment.upload_dir(folder, PAYLOAD_TARGET)
        await environment.upload_file(folder / settings_file, settings_target)
        await self._fire_exec(
            environment,
            f"chmod -R a+rX /fire && chmod 644 {shlex.quote(settings_target)}",
        )
        expected = {f"{PAYLOAD_TARGET}/{name}": digest for name, digest in files.items()}
        expected[settings_target] = files[settings_file]
        await self._fire_verify(environment, expected)
        node = await self._fire_ensure_node(environment)
        if node["source"] == "uploaded":
            expected[node["path"]] = node["sha256"]  # checked inside after unpacking
        sandbox = uuid.uuid4().hex
        await self._fire_exec(
            environment,
            f"printf '%s\\n' {sandbox} > {SANDBOX_ID_FILE} && chmod 644 {SANDBOX_ID_FILE}",
        )
        return {
            "screen": manifest.get("screen"),
            "arm": manifest.get("arm"),
            "sandbox": sandbox,
            "payloadSha256": _sha256_file(folder / MANIFEST),
            "verified": expected,
            "settings": settings_target,
            "node": node,
        }

    async def setup(self, environment: Any) -> None:
        await super().setup(environment)  # Harbor installs the client first
        record: dict[str, Any] = {
            "format": "fire-harbor-delivery/1",
            "harness": self.FIRE_HARNESS,
            "environment": str(type(environment).__name__),
            "at": datetime.now(timezone.utc).isoformat(),
            "payload": None,
        }
        if self._fire_payload is not None:
            record["payload"] = await self._fire_deliver(environment)
        logs_dir = Path(self.logs_dir)
        logs_dir.mkdir(parents=True, exist_ok=True)
        (logs_dir / DELIVERY_RECORD).write_text(json.dumps(record, indent=2) + "\n")


class FireClaudeCode(_FireDelivery, ClaudeCode):
    """Harbor's Claude Code agent with fire's hook payload delivered in setup."""

    FIRE_HARNESS = "claude"


class FireCodex(_FireDelivery, Codex):
    """Harbor's Codex agent with fire's hook payload delivered in setup."""

    FIRE_HARNESS = "codex"
