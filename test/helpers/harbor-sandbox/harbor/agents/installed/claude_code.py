"""Stand-in for harbor.agents.installed.claude_code.ClaudeCode: install records a marker."""

from __future__ import annotations

from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent


class ClaudeCode(BaseInstalledAgent):
    @staticmethod
    def name() -> str:
        return "claude-code"

    async def install(self, environment: Any) -> None:
        await environment.exec(command="echo claude-code > /installed-agent/client", user="root")
