"""Stand-in for harbor.environments.base (Harbor 0.22): the contract the adapter uses."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ExecResult:
    stdout: str | None = None
    stderr: str | None = None
    return_code: int = 0


class BaseEnvironment(ABC):
    default_user: str | int | None = None

    @abstractmethod
    async def upload_file(self, source_path: Path | str, target_path: str): ...

    @abstractmethod
    async def upload_dir(self, source_dir: Path | str, target_dir: str): ...

    @abstractmethod
    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult: ...
