"""Stand-in for harbor.agents.installed.codex.Codex: install records a marker."""

from __future__ import annotations

from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent


class Codex(BaseInstalledAgent):
    @staticmethod
    def name() -> str:
        return "codex"

    async def install(self, environment: Any) -> None:
        await environment.exec(command="echo codex > /installed-agent/client", user="root")
