#!/usr/bin/env bash
# Live check (opt-in): Claude Code's managed `allowManagedHooksOnly` silently skips the hook
# `fire hook install --user` wrote, and `fire hook doctor` says so before the client starts.
# The managed settings folder (/etc/claude-code) is faked inside the rig's private mount
# namespace (a copy of /etc bound over /etc), so the machine's own /etc is never touched; this
# needs the rig's namespaces (run as root, unshare available).
# Cases: managed-only (the flag set), control (no managed settings).
# Usage: test/real-clients/managed-hooks-only.sh OUTDIR   (RC_RIG, CLAUDE_BIN as install-acts.sh)
# Evidence per case in OUTDIR/<case>/: pre-client.txt (install + doctor), hook-ran.txt (whether
# fire's hook log was written), marker.txt (the tool call ran).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RIG="${RC_RIG:-$REPO/../shared/realclients}"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
FIRE="$REPO/dist/cli/fire.cjs"
PORTFOLIO="$REPO/test/runtime/fixtures/portfolio"
for name in managed-only control; do
  dir="$OUT/$name"; rm -rf "$dir"; mkdir -p "$dir/work" "$dir/ws"
  fake=":"
  if [ "$name" = managed-only ]; then
    fake="cp -a /etc '$dir/etc' && mkdir -p '$dir/etc/claude-code' && echo '{\"allowManagedHooksOnly\": true}' >'$dir/etc/claude-code/managed-settings.json' && mount --bind '$dir/etc' /etc"
  fi
  export RC_HOOKS=none RC_OUT="$dir/run" RC_TIMEOUT="${RC_TIMEOUT:-90}"
  export RC_PRE_CLIENT="node '$FIRE' hook install --harness claude --user --portfolio '$PORTFOLIO' -w '$dir/ws' && $fake && { node '$FIRE' hook doctor --harness claude --user 2>&1; true; }"
  bash "$RIG/run-claude.sh" "$REPO/test/real-clients/scripts/marker.json" "$dir/work" - >"$dir/runner.txt" 2>&1
  cp "$dir/run/pre-client.txt" "$dir/" 2>/dev/null
  if [ -s "$dir/ws/.fire/hook-log.jsonl" ]; then echo yes >"$dir/hook-ran.txt"; else echo no >"$dir/hook-ran.txt"; fi
  if [ -f "$dir/work/marker.txt" ]; then echo yes >"$dir/marker.txt"; else echo no >"$dir/marker.txt"; fi
  rm -rf "$dir/etc"
  echo "$name: fire's hook ran: $(cat "$dir/hook-ran.txt"); tool call ran: $(cat "$dir/marker.txt")"
done
