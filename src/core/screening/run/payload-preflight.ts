import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Libc, type NodeBinary, payloadRuntimes } from "../../deploy/node-runtime.js";
import { DomainError, NotFoundError } from "../../errors.js";
import type { ScreenPlan } from "../plan/schema.js";

/**
 * Before any trial runs: can the hook payload start in the containers? It needs a Linux node
 * runtime for the container's C library (mounted from the host), and when the dataset is a
 * local folder each planned task's image is read (`environment/Dockerfile` FROM, or
 * `docker_image` in task.toml) so that a musl image (Alpine) without a musl runtime is
 * refused here, naming the image — not discovered as a silent hook in every trial.
 */
export interface PayloadPreflight {
  runtimes: Partial<Record<Libc, NodeBinary>>;
}

/** The image a local task folder builds or names, when it can be read. */
export function taskImage(taskDir: string): string | undefined {
  const dockerfile = join(taskDir, "environment", "Dockerfile");
  if (existsSync(dockerfile)) {
    const from = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)/im.exec(readFileSync(dockerfile, "utf8"));
    if (from?.[1]) return from[1];
  }
  const toml = join(taskDir, "task.toml");
  if (existsSync(toml)) {
    const m = /^\s*docker_image\s*=\s*"([^"]+)"/m.exec(readFileSync(toml, "utf8"));
    if (m?.[1]) return m[1];
  }
  return undefined;
}

/** musl for Alpine-based images, else glibc (Debian, Ubuntu, RHEL, … and unknown). */
export const imageLibc = (image: string): Libc =>
  /(^|[/:@-])alpine([:@-]|$)|musl/i.test(image) ? "musl" : "glibc";

export function preflightPayload(opts: {
  plan: ScreenPlan;
  /** A local dataset folder (`-p`), when the run uses one. */
  datasetDir?: string;
  env?: NodeJS.ProcessEnv;
}): PayloadPreflight {
  const { runtimes, problems } = payloadRuntimes(opts.env);
  if (!opts.plan.arms.some((a) => a.files.length > 0)) return { runtimes };
  if (problems.length) throw new DomainError("invalid", `hook payload: ${problems.join("; ")}`);
  if (!runtimes.glibc && !runtimes.musl)
    throw new NotFoundError(
      `hook payload: no Linux node runtime to mount into the containers (this fire runs on ${process.execPath}, which is not a Linux x86_64/aarch64 node); set FIRE_PAYLOAD_NODE_GLIBC (and FIRE_PAYLOAD_NODE_MUSL for Alpine images) to Linux node binaries`,
    );
  if (!opts.datasetDir) return { runtimes };
  for (const t of opts.plan.tasks) {
    const dir = resolve(opts.datasetDir, t.id);
    const image = taskImage(dir);
    if (!image) continue;
    const libc = imageLibc(image);
    if (!runtimes[libc])
      throw new NotFoundError(
        `hook payload: task ${t.id} runs in ${image}, a ${libc} image, and there is no ${libc} node runtime to mount (have: ${Object.keys(runtimes).join(", ")}); set FIRE_PAYLOAD_NODE_${libc.toUpperCase()} to a Linux ${libc} node binary, or leave the task out of the plan`,
      );
  }
  return { runtimes };
}
