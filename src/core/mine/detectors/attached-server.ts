import { commandOf, PROBE_RE, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

export const SERVER_LAUNCH_RE =
  /(python3?\s+-m\s+http\.server|\bflask\s+run\b|\buvicorn\b|\bgunicorn\b|\bnode\s+\S*(?:server|app|index)\S*|\bnpm\s+(?:run\s+)?(?:start|serve|dev)\b|\bhttp-server\b|\bnginx\b|\bhttpd\b|\bapache2ctl\b|\bredis-server\b|\bmongod\b|\bpostgres\b|\bpg_ctl\s+start|\bqemu-system|\bjava\s+-jar\b|\brails\s+s(?:erver)?\b|\bphp\s+-S\b|\.\/\S*server\S*|\bserver\.(?:py|js)\b|\bsshd\b|\bmysqld\b|\bvirsh\s+start\b)/;
const DETACHED_RE =
  /\b(nohup|setsid|disown|tmux\s+new|screen\s+-d|start-stop-daemon|systemctl\s+start|service\s+\S+\s+start|daemonize)\b|\bdocker\s+run\b[^|;]*\s-d\b|(?<!&)&\s*(?:$|;|\n|\bsleep\b|disown)|--daemon\b|\s-daemonize\b|-D\b.*\bsshd/;
const SERVICE_TASK_RE =
  /\b(server|service|daemon|keep (?:it )?running|stays? (?:up|running|reachable)|reachable|listen(?:s|ing)? on|port \d+|\bVM\b|virtual machine|background)\b/i;

/** A server/VM launched in the agent's own session (not detached), or never probed from a later call. */
export const attachedServer: Detector = {
  id: "service.attached-launch",
  description:
    "server or VM launched in the agent's session (not detached) or never probed later, still needed at stop",
  family: "service-persistence",
  detect(attempt) {
    if (!SERVICE_TASK_RE.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    const launches = calls.filter((c) => SERVER_LAUNCH_RE.test(commandOf(c) ?? ""));
    if (launches.length === 0) return [];
    const last = launches.at(-1);
    if (!last) return [];
    const cmd = commandOf(last) ?? "";
    const detached = DETACHED_RE.test(cmd);
    const probedLater = calls.some(
      (c) => c.index > last.index && PROBE_RE.test(commandOf(c) ?? ""),
    );
    if (detached && probedLater) return [];
    const why = !detached
      ? "last server launch runs attached to the agent's session (no nohup/setsid/&)"
      : "detached server launch never probed from a later call";
    return [{ eventIndices: [last.index], reason: `${why}: ${cmd.slice(0, 80)}` }];
  },
};
