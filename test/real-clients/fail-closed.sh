#!/usr/bin/env bash
# Live check (opt-in): `fire hook install --fail-closed` makes a hook that cannot even start
# block the action in the real Claude Code (onFailure: "block"), and what it does in Codex.
# fire is installed from a copy of dist/ that is deleted before the client starts: the hook
# command the settings name is missing, as after an uninstalled or moved fire. The script's
# only tool call writes marker.txt; the rig runs as a user runs the client (RC_HOOKS=none,
# Codex without --dangerously-bypass-hook-trust).
# Cases: claude-fail-closed, claude-default (the control), codex-fail-closed.
# Usage: test/real-clients/fail-closed.sh OUTDIR   (RC_RIG, CLAUDE_BIN, CODEX_BIN as install-acts.sh)
# Evidence per case in OUTDIR/<case>/: pre-client.txt, installed-* (the settings fire wrote),
# tool-result.json (what the model got back for the tool call), marker.txt (whether it ran).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RIG="${RC_RIG:-$REPO/../shared/realclients}"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
PORTFOLIO="$REPO/test/runtime/fixtures/portfolio"
[ -f "$REPO/dist/cli/fire.cjs" ] || { echo "build fire first (npm run build)" >&2; exit 2; }
for name in claude-fail-closed claude-default codex-fail-closed; do
  client="${name%%-*}"
  flag=""; [ "${name#*-}" = fail-closed ] && flag="--fail-closed"
  dir="$OUT/$name"; rm -rf "$dir"; mkdir -p "$dir/work" "$dir/ws" "$dir/fire"
  # a throwaway copy of fire: the installed command points into it, then it is gone
  cp -r "$REPO/dist" "$REPO/package.json" "$dir/fire/" && ln -s "$REPO/node_modules" "$dir/fire/node_modules"
  FIRE="$dir/fire/dist/cli/fire.cjs"
  export RC_HOOKS=none RC_CODEX_HOOK_TRUST=none RC_OUT="$dir/run" RC_TIMEOUT="${RC_TIMEOUT:-90}"
  export RC_PRE_CLIENT="node '$FIRE' hook install --harness $client --user $flag --portfolio '$PORTFOLIO' -w '$dir/ws' && rm -rf '$dir/fire' && echo 'removed the fire the hook runs'"
  bash "$RIG/run-$client.sh" "$REPO/test/real-clients/scripts/marker.json" "$dir/work" - >"$dir/runner.txt" 2>&1
  cp "$dir/run/pre-client.txt" "$dir/" 2>/dev/null
  for f in run/state/home/.claude/settings.json run/state/codex-home/hooks.json; do
    [ -f "$dir/$f" ] && cp "$dir/$f" "$dir/installed-$(basename "$f")"
  done
  # the tool call's result as the model saw it (the second scripted request's new input)
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
    const texts = JSON.stringify(lines.map((l) => l.new_messages ?? l.new_input ?? l.new ?? l));
    const m = /"(?:tool_result|function_call_output)"[^]*?(?:"content"|"output"):("(?:[^"\\]|\\.)*")/.exec(texts);
    process.stdout.write(JSON.stringify({ result: m ? JSON.parse(m[1]) : null }) + "\n");
  ' "$dir/run/requests.summary.jsonl" >"$dir/tool-result.json"
  if [ -f "$dir/work/marker.txt" ]; then echo yes >"$dir/marker.txt"; else echo no >"$dir/marker.txt"; fi
  echo "$name: marker written: $(cat "$dir/marker.txt"); $(cat "$dir/tool-result.json" | cut -c1-160)"
done
