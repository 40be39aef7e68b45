import { posix } from "node:path";
import type { Libc, NodeBinary } from "./node-runtime.js";

/**
 * The payload's launcher, `fire-hook.sh`: the hook command runs it with `sh`, and it runs the
 * bundled hook with a node that works in this container — the host's Linux node mounted at
 * `/fire/node/<libc>/node` for the container's C library (musl when `/lib/ld-musl-*` exists,
 * else glibc), else a `node` on PATH. With neither it answers nothing (the agent goes on) and
 * logs one fault line in the hook log, so the trial shows why the hook did not act.
 */
export const PAYLOAD_LAUNCHER = "fire-hook.sh";
/**
 * Written by fire's Harbor adapter inside the sandbox only (a fresh id per trial, recorded on
 * the host in the trial's `agent/fire-delivery.json`); the launcher appends it to
 * `fire-sandbox.jsonl` beside the hook log on every call, so an id that matches proves the
 * hook command ran in that sandbox. Absent (mounted delivery): nothing is appended.
 */
export const SANDBOX_ID_FILE = "/fire/sandbox-id";
export const SANDBOX_LOG_NAME = "fire-sandbox.jsonl";
export const CONTAINER_NODE_DIR = "/fire/node";

export const containerNode = (libc: Libc): string => `${CONTAINER_NODE_DIR}/${libc}/node`;

export function launcherScript(opts: {
  payloadDir: string;
  hook: string;
  log: string;
  harness: "claude" | "codex";
}): string {
  const fault = (why: string) =>
    JSON.stringify({
      session: "",
      harness: opts.harness,
      event: "",
      eventIndex: null,
      firings: [],
      verdict: { action: "allow" },
      tracked: [],
      error: why,
    }).slice(1, -1);
  return `#!/bin/sh
# fire hook payload launcher (written by fire; see core/deploy/payload-launcher.ts)
if { read -r sid < ${SANDBOX_ID_FILE}; } 2>/dev/null; then printf '{"sandbox":"%s"}\\n' "$sid" >> "${posix.dirname(opts.log)}/${SANDBOX_LOG_NAME}" 2>/dev/null; fi
if ls /lib/ld-musl-* >/dev/null 2>&1; then libc=musl n=${containerNode("musl")}
else libc=glibc n=${containerNode("glibc")}; fi
if [ -x "$n" ]; then exec "$n" "${opts.payloadDir}/${opts.hook}" "$@"; fi
if command -v node >/dev/null 2>&1; then exec node "${opts.payloadDir}/${opts.hook}" "$@"; fi
cat >/dev/null
mkdir -p "$(dirname "${opts.log}")" 2>/dev/null
printf '{"ts":"%s",${fault("no node runtime in this container: none was mounted for its C library (%s) and there is no node on PATH")}}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$libc" >> "${opts.log}"
exit 0
`;
}

/** The bind mounts that bring each runtime into the container. */
export function runtimeMounts(runtimes: Partial<Record<Libc, NodeBinary>>) {
  return Object.entries(runtimes).map(([libc, b]) => ({
    type: "bind" as const,
    source: (b as NodeBinary).path,
    target: containerNode(libc as Libc),
    read_only: true as const,
  }));
}
