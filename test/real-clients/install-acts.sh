#!/usr/bin/env bash
# Live check (opt-in): the hook that `fire hook install` writes ACTS in the real clients, run
# as a user runs them — no rig hooks (RC_HOOKS=none), no --dangerously-bypass-hook-trust for
# Codex (RC_CODEX_HOOK_TRUST=none). Four cases: {claude, codex} x {--user, --project}; each
# runs the rig's rm-deny-stop script, whose turns expect fire's deny of `rm -rf` and its Stop
# instruction, and fire's own hook log must hold those decisions.
# Usage: test/real-clients/install-acts.sh OUTDIR
#   RC_RIG: a copy of ../shared/realclients (default: ../shared/realclients itself; it is
#   only read); CLAUDE_BIN / CODEX_BIN: the pinned clients (see the rig's README).
# Evidence per case in OUTDIR/<case>/: pre-client.txt (fire's install output), check.txt (the
# rig's summary), fire-hook-log.jsonl (fire's decisions), client-stderr.txt, installed-* (the
# settings files fire wrote, as the client read them).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RIG="${RC_RIG:-$REPO/../shared/realclients}"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
FIRE="${FIRE_CLI_JS:-$REPO/dist/cli/fire.cjs}"
PORTFOLIO="$REPO/test/runtime/fixtures/portfolio"
[ -f "$FIRE" ] || { echo "build fire first (npm run build)" >&2; exit 2; }
fail=0
for client in claude codex; do
  for scope in user project; do
    name="$client-$scope"
    dir="$OUT/$name"; rm -rf "$dir"; mkdir -p "$dir/work" "$dir/ws"
    if [ "$scope" = user ]; then target="--user"; else target="--project $dir/work"; fi
    export RC_HOOKS=none RC_CODEX_HOOK_TRUST=none RC_OUT="$dir/run" RC_TIMEOUT="${RC_TIMEOUT:-90}"
    export RC_PRE_CLIENT="node '$FIRE' hook install --harness $client $target --portfolio '$PORTFOLIO' -w '$dir/ws' && node '$FIRE' hook doctor --harness $client $target"
    bash "$RIG/run-$client.sh" "$RIG/scripts/rm-deny-stop.json" "$dir/work" - >"$dir/runner.txt" 2>&1
    cp "$dir/run/pre-client.txt" "$dir/" 2>/dev/null
    cp "$dir/run/client-stderr.txt" "$dir/" 2>/dev/null
    cp "$dir/ws/.fire/hook-log.jsonl" "$dir/fire-hook-log.jsonl" 2>/dev/null
    # what fire installed, where the client read it
    for f in run/state/home/.claude/settings.json work/.claude/settings.local.json \
             run/state/codex-home/hooks.json work/.codex/hooks.json run/state/codex-home/config.toml; do
      [ -f "$dir/$f" ] && cp "$dir/$f" "$dir/installed-$(basename "$f")"
    done
    if node "$RIG/check-run.mjs" "$dir/run" --expect-all >"$dir/check.txt" 2>&1; then
      echo "ok   $name: fire's deny and stop instruction reached the model"
    else
      echo "FAIL $name (see $dir/check.txt)"; fail=1
    fi
  done
done
exit $fail
