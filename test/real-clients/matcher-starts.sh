#!/usr/bin/env bash
# Live count (opt-in): how many times the REAL client starts fire's hook in one session, with
# and without the tool matchers `fire hook install` writes for a frozen portfolio. Per client,
# the same scripted session runs twice, installed as a user installs (RC_HOOKS=none; Codex
# without --dangerously-bypass-hook-trust): once with the candidates' folder (editable, so
# every tool's events reach the hook: matcher ""), once with the same candidates frozen (their
# conditions name only shell commands: matcher "Bash"). The session writes files with the
# client's edit tool (Claude Write + Read, Codex apply_patch x2), then runs four shell calls,
# one of them `rm -rf` (denied), and stops twice (instructed once).
# Usage: test/real-clients/matcher-starts.sh OUTDIR  (CLAUDE_BIN / CODEX_BIN; RC_RIG)
# Writes OUTDIR/<client>.json: per run, the hook starts by event (one hook-log line per start),
# the decisions (every non-allow verdict with its rules), and the session's tool calls.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RIG="${RC_RIG:-$REPO/../shared/realclients}"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
FIRE="${FIRE_CLI_JS:-$REPO/dist/cli/fire.cjs}"
[ -f "$FIRE" ] || { echo "build fire first (npm run build)" >&2; exit 2; }
fail=0
for client in claude codex; do
  base="$OUT/$client"; rm -rf "$base"; mkdir -p "$base/ws/candidates"
  # the test portfolio without its unconditional call counter: every condition names a command
  node -e '
    const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    c.id = "test.rm-guard-commands"; c.track = c.track.filter((t) => t.when !== undefined);
    process.stdout.write(JSON.stringify(c, null, 2) + "\n");
  ' "$REPO/test/runtime/fixtures/portfolio/rm-guard.json" > "$base/ws/candidates/rm-guard-commands.json"
  node "$FIRE" freeze test.rm-guard-commands --name commands --force --reason "matcher count" -w "$base/ws" >/dev/null \
    || { echo "FAIL $client: freeze"; fail=1; continue; }
  for mode in all matchers; do
    dir="$base/$mode"; mkdir -p "$dir/work" "$dir/fire"
    if [ "$mode" = all ]; then P="$base/ws/candidates"; else P="$base/ws/portfolios/commands"; fi
    sed "s#WORKDIR#$dir/work#g" "$HERE/scripts/matcher-$client.json" > "$dir/script.json"
    export RC_HOOKS=none RC_CODEX_HOOK_TRUST=none RC_OUT="$dir/run" RC_TIMEOUT="${RC_TIMEOUT:-90}"
    export RC_PRE_CLIENT="node '$FIRE' hook install --harness $client --user --portfolio '$P' -w '$dir/fire'"
    bash "$RIG/run-$client.sh" "$dir/script.json" "$dir/work" - >"$dir/runner.txt" 2>&1
    node "$RIG/check-run.mjs" "$dir/run" --expect-all >"$dir/check.txt" 2>&1 || { echo "FAIL $client $mode (see $dir/check.txt)"; fail=1; }
    cp "$dir/run/pre-client.txt" "$dir/" 2>/dev/null
  done
  node - "$base" "$client" > "$OUT/$client.json" <<'JS'
const fs = require("fs"), path = require("path");
const [base, client] = process.argv.slice(2);
const lines = (f) => fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
const sessionFiles = (d) => fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(d, f)) : [];
function toolCalls(dir) {
  const names = [];
  for (const f of sessionFiles(dir)) for (const r of lines(f)) {
    if (client === "claude" && r.type === "assistant")
      for (const c of r.message?.content ?? []) if (c.type === "tool_use") names.push(c.name);
    if (client === "codex" && r.type === "response_item" && /call$/.test(r.payload?.type ?? "") && r.payload?.name)
      names.push(r.payload.name);
  }
  return names;
}
const out = { client, runs: {} };
for (const mode of ["all", "matchers"]) {
  const d = path.join(base, mode);
  const log = lines(path.join(d, "fire/.fire/hook-log.jsonl"));
  const starts = {};
  for (const e of log) { const k = e.tool ? `${e.event} ${e.tool}` : e.event; starts[k] = (starts[k] ?? 0) + 1; }
  const settings = client === "claude" ? "run/state/home/.claude/settings.json" : "run/state/codex-home/hooks.json";
  const installed = JSON.parse(fs.readFileSync(path.join(d, settings), "utf8"));
  const matchers = Object.fromEntries(Object.entries(installed.hooks).filter(([, g]) => g[0]?.matcher !== undefined).map(([ev, g]) => [ev, g[0].matcher]));
  out.runs[mode] = {
    matchers,
    hookStarts: log.length,
    startsByEvent: starts,
    decisions: log.filter((e) => e.verdict.action !== "allow").map((e) => `${e.event} ${e.verdict.action} ${e.firings.map((f) => f.ruleId).join(",")}`),
    errors: log.filter((e) => e.error).length,
    toolCalls: toolCalls(path.join(d, "run/sessions")),
    check: fs.readFileSync(path.join(d, "check.txt"), "utf8").includes("PASS") ? "PASS" : "FAIL",
  };
}
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
JS
  echo "$client: $(node -e 'const r=require(process.argv[1]).runs;console.log(`hook starts ${r.all.hookStarts} (all tools) -> ${r.matchers.hookStarts} (matchers); tool calls ${r.all.toolCalls.length}; decisions equal: ${JSON.stringify(r.all.decisions)===JSON.stringify(r.matchers.decisions)}`)' "$OUT/$client.json")"
done
exit $fail
