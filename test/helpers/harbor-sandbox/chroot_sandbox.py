"""A stand-in Harbor environment: a private mount namespace + chroot on this machine.

Implements Harbor's environment contract (upload_file / upload_dir / exec / default_user) as
read from harbor/environments/base.py. The sandbox root is a temp folder: `/usr` (and the
merged-usr links) come from this machine, read-only; `/fire`, `/etc`, `/logs`, `/tmp` are the
sandbox's own, so a path the adapter writes exists only inside. Needs root and unshare.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult

OLD_NODE = "#!/bin/sh\nprintf 12.22.9\n"


class ChrootSandbox(BaseEnvironment):
    def __init__(
        self,
        root: Path,
        node: str = "image",
        default_user: str | None = None,
        corrupt: str | None = None,
        binds: dict[str, str] | None = None,
    ) -> None:
        self.root = Path(root)
        # sandbox path -> host folder, bound read-only (stands for what the image ships, e.g.
        # the client Harbor's install step would have put there)
        self.binds = dict(binds or {})
        self.node = node
        self.default_user = default_user
        self.corrupt = corrupt
        self.uploads: list[str] = []
        self._proc: subprocess.Popen[str] | None = None

    def _layout(self) -> None:
        r = self.root
        r.mkdir(parents=True, exist_ok=True)
        os.chmod(r, 0o755)
        for d in ("usr", "dev", "proc", "etc", "logs/agent", "tmp", ".standin"):
            (r / d).mkdir(parents=True, exist_ok=True)
        os.chmod(r / "tmp", 0o1777)
        os.chmod(r / "logs" / "agent", 0o777)  # Harbor makes the agent log folder writable
        for d in ("bin", "lib", "lib64", "sbin"):
            host = Path("/") / d
            if host.is_symlink():
                (r / d).symlink_to(os.readlink(host))
            elif host.is_dir():
                (r / d).mkdir(exist_ok=True)
        for f in ("passwd", "group"):
            shutil.copyfile(f"/etc/{f}", r / "etc" / f)
        no_node = r / ".standin" / "no-node"
        no_node.write_text("")
        os.chmod(no_node, 0)
        old = r / ".standin" / "old-node"
        old.write_text(OLD_NODE)
        os.chmod(old, 0o755)

    async def start(self) -> None:
        self._layout()
        r = str(self.root)
        binds = ["usr"] + [
            d for d in ("bin", "lib", "lib64", "sbin") if (Path("/") / d).is_dir() and not (Path("/") / d).is_symlink()
        ]
        script = ["set -e"]
        for d in binds:
            script += [f"mount --bind /{d} {r}/{d}", f"mount -o remount,bind,ro {r}/{d}"]
        script.append(f"mount --bind /dev {r}/dev")
        script.append(f"mount -t proc proc {r}/proc")  # as a container has (the clients read /proc/self)
        for target, host in self.binds.items():
            inside = shlex.quote(f"{r}/{target.lstrip('/')}")
            script += [
                f"mkdir -p {inside}",
                f"mount --bind {shlex.quote(host)} {inside}",
                f"mount -o remount,bind,ro {inside}",
            ]
        if self.node == "none":
            script.append(f"mount --bind {r}/.standin/no-node {r}/usr/bin/node")
        elif self.node == "old":
            script.append(f"mount --bind {r}/.standin/old-node {r}/usr/bin/node")
        script += ["echo ready", "exec sleep 900"]
        self._proc = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "--fork", "--kill-child", "sh", "-c", "\n".join(script)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"sandbox did not start: {self._proc.stderr.read() if self._proc.stderr else ''}")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()  # unshare --kill-child takes the namespace's process with it
            self._proc.wait(timeout=10)
            self._proc = None

    def host_path(self, target: str) -> Path:
        return self.root / target.lstrip("/")

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        # bytes only, no mode bits (as E2B's and Runloop's uploads)
        dest = self.host_path(target_path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = Path(source_path).read_bytes()
        if self.corrupt and Path(target_path).name == self.corrupt and data:
            data = data[:-1] + bytes([data[-1] ^ 1])
        dest.write_bytes(data)
        self.uploads.append(target_path)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        source = Path(source_dir)
        for f in sorted(source.rglob("*")):
            if f.is_file():
                await self.upload_file(f, f"{target_dir.rstrip('/')}/{f.relative_to(source).as_posix()}")

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        assert self._proc is not None, "sandbox not started"
        who = user if user is not None else self.default_user
        userspec = [] if who in (None, "root", 0) else ["--userspec=65534:65534"]
        pairs = [f"{k}={v}" for k, v in (env or {}).items()]
        body = f"cd {cwd} && {command}" if cwd else command
        proc = await asyncio.create_subprocess_exec(
            "nsenter", "-t", str(self._proc.pid), "-m",
            "chroot", *userspec, str(self.root),
            "/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", *pairs,
            "/bin/sh", "-c", body,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout_sec or 120)
        return ExecResult(stdout=out.decode(), stderr=err.decode(), return_code=proc.returncode or 0)
