"""Stand-in for harbor.agents.installed.base.BaseInstalledAgent (Harbor 0.22)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any


class BaseInstalledAgent(ABC):
    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *args: Any,
        extra_env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        # Harbor's BaseAgent takes **kwargs and ignores the ones it does not know.
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self.ignored_kwargs = dict(kwargs)

    @staticmethod
    @abstractmethod
    def name() -> str: ...

    @abstractmethod
    async def install(self, environment: Any) -> None: ...

    async def setup(self, environment: Any) -> None:
        await environment.exec(
            command="[ -d /installed-agent ] || mkdir -p /installed-agent", user="root"
        )
        (self.logs_dir / "setup").mkdir(parents=True, exist_ok=True)
        await self.install(environment)
