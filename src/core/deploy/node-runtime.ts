import { closeSync, openSync, readSync, realpathSync } from "node:fs";

/**
 * The Node runtime a hook payload brings into a container that has no `node` (Harbor's
 * claude-code agent installs the native Claude binary on apt/yum images, so there is none).
 * A Linux node binary from the host is bind-mounted read-only beside the bundled hook; the
 * payload's launcher picks the one matching the container's C library (glibc or musl).
 */

export type Libc = "glibc" | "musl";

export interface NodeBinary {
  path: string;
  libc: Libc;
  /** ELF machine: x86_64 or aarch64. */
  arch: string;
}

const MACHINES: Record<number, string> = { 62: "x86_64", 183: "aarch64" };

/**
 * Reads an executable's ELF header: a Linux binary's C library (from its program
 * interpreter: ld-linux → glibc, ld-musl → musl) and machine. Undefined when the file is not
 * a dynamically linked 64-bit little-endian Linux ELF (e.g. a macOS node).
 */
export function inspectNodeBinary(file: string): NodeBinary | undefined {
  let fd: number;
  let path: string;
  try {
    path = realpathSync(file);
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(64);
    if (readSync(fd, head, 0, 64, 0) < 64) return undefined;
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return undefined;
    const arch = MACHINES[head.readUInt16LE(18)];
    if (!arch) return undefined;
    const phoff = Number(head.readBigUInt64LE(32));
    const phentsize = head.readUInt16LE(54);
    const phnum = head.readUInt16LE(56);
    const table = Buffer.alloc(phentsize * phnum);
    readSync(fd, table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) {
      const at = i * phentsize;
      if (table.readUInt32LE(at) !== 3) continue; // PT_INTERP
      const off = Number(table.readBigUInt64LE(at + 8));
      const size = Number(table.readBigUInt64LE(at + 32));
      const interp = Buffer.alloc(Math.min(size, 256));
      readSync(fd, interp, 0, interp.length, off);
      const name = interp.toString("latin1").replace(/\0.*$/s, "");
      if (/ld-musl/.test(name)) return { path, libc: "musl", arch };
      if (/ld-linux/.test(name)) return { path, libc: "glibc", arch };
      return undefined;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The Linux node runtimes available for payloads: this process's node when it is one, plus
 * `FIRE_PAYLOAD_NODE_GLIBC` / `FIRE_PAYLOAD_NODE_MUSL` (paths to Linux node binaries, e.g. an
 * unpacked official `node-vXX-linux-x64-musl` build) when set. Each is checked, not trusted.
 */
export function payloadRuntimes(env: NodeJS.ProcessEnv = process.env): {
  runtimes: Partial<Record<Libc, NodeBinary>>;
  problems: string[];
} {
  const runtimes: Partial<Record<Libc, NodeBinary>> = {};
  const problems: string[] = [];
  for (const libc of ["glibc", "musl"] as const) {
    const given = env[`FIRE_PAYLOAD_NODE_${libc.toUpperCase()}`];
    if (!given) continue;
    const b = inspectNodeBinary(given);
    if (b?.libc === libc) runtimes[libc] = b;
    else
      problems.push(
        `FIRE_PAYLOAD_NODE_${libc.toUpperCase()}=${given} is not a Linux ${libc} node binary${b ? ` (it is ${b.libc})` : ""}`,
      );
  }
  const own = inspectNodeBinary(process.execPath);
  if (own && !runtimes[own.libc]) runtimes[own.libc] = own;
  return { runtimes, problems };
}
