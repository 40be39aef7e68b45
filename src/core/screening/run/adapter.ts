import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createGzip } from "node:zlib";
import type { Libc, NodeBinary } from "../../deploy/node-runtime.js";
import { PAYLOAD_MANIFEST } from "../../deploy/payload-format.js";
import { parsePayloadManifest } from "../../deploy/payload-manifest.js";
import { ConflictError, InvalidFieldError, NotFoundError } from "../../errors.js";
import { shellQuote } from "../../shell-quote.js";
import { sha256Hex } from "../canonical.js";
import type { ArmPayload, PayloadHarness } from "./payload.js";

/**
 * Delivery of a screen arm's hook payload through fire's Harbor agent adapter
 * (`harbor/fire_harbor_agent.py`, shipped with fire) instead of host bind mounts.
 *
 * Harbor's cloud environments do not bind-mount host paths (Daytona and Modal rewrite a bind
 * mount's source to its own target inside the VM; E2B and the base class use mounts only as
 * mkdir hints), so `--mounts` leaves the sandbox without the hook. The adapter subclasses
 * Harbor's Claude Code / Codex agents and, in `setup`, uploads the payload with the
 * environment's `upload_dir` / `upload_file`, verifies every hash inside the sandbox, writes
 * the managed settings and uploads a node runtime when the image has none recent enough.
 * The Harbor command names it with `--agent-import-path fire_harbor_agent:<Class>` and passes
 * the payload as agent kwargs (`--ak key=value`); the adapter's folder goes on PYTHONPATH.
 */

/** Harbor's built-in environment types (`models/environment_type.py`, Harbor 0.22). */
export const HARBOR_ENVS = [
  "docker",
  "daytona",
  "e2b",
  "modal",
  "runloop",
  "langsmith",
  "ec2",
  "gke",
  "ack",
  "openshift",
  "novita",
  "apple-container",
  "singularity",
  "islo",
  "tensorlake",
  "cwsandbox",
  "wandb",
  "use-computer",
  "cua-cloud",
  "blaxel",
  "opensandbox",
  "beam",
  "skypilot",
  "hf-sandbox",
  "hyperbrowser",
  "vercel",
] as const;

/** Bind mounts from this host reach the container only on the local Docker environment. */
export const MOUNT_ENVS: ReadonlySet<string> = new Set(["docker"]);

export type Delivery = "mounts" | "adapter";
export const DELIVERIES: readonly Delivery[] = ["mounts", "adapter"];

/** The adapter shipped with fire: `<package>/harbor/fire_harbor_agent.py`. */
export const ADAPTER_FILE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../../harbor/fire_harbor_agent.py",
);
export const ADAPTER_CLASS: Record<PayloadHarness, string> = {
  claude: "FireClaudeCode",
  codex: "FireCodex",
};
/** What the adapter writes into each trial's agent/ folder (host side). */
export const DELIVERY_RECORD = "fire-delivery.json";
/** Node runtimes for the adapter: `<screen>/payload/node/` (index + gzipped binaries). */
export const RUNTIMES_INDEX = "runtimes.json";

/**
 * An environment name Harbor knows (or a custom `module.path:ClassName`, which Harbor also
 * takes); anything else is refused before a trial runs.
 */
export function checkEnvironment(env: string): void {
  if ((HARBOR_ENVS as readonly string[]).includes(env)) return;
  if (/^[A-Za-z_][\w.]*:[A-Za-z_]\w*$/.test(env)) return;
  throw new InvalidFieldError(
    "env",
    `Harbor environment "${env}"`,
    `is unknown (Harbor's: ${HARBOR_ENVS.join(", ")}; or a custom module.path:ClassName)`,
  );
}

/**
 * How the payload gets in: host mounts only on local Docker (where they provably work);
 * everywhere else the adapter. A requested `mounts` on another environment is refused: the
 * sandbox would run without the hook.
 */
export function deliveryFor(env: string, requested?: Delivery): Delivery {
  const local = MOUNT_ENVS.has(env);
  if (requested === "mounts" && !local)
    throw new InvalidFieldError(
      "delivery",
      "mounted delivery",
      `cannot reach a ${env} sandbox: Harbor's cloud environments do not bind-mount this host's files (the hook would never run); use the adapter (the default there)`,
    );
  return requested ?? (local ? "mounts" : "adapter");
}

export interface AdapterInfo {
  file: string;
  /** The Python module name Harbor imports (the file's basename). */
  module: string;
  /** The folder to put on PYTHONPATH. */
  dir: string;
  sha256: string;
}

/** The adapter file, checked: present, a Python module name, defining both classes. */
export function checkAdapter(file: string = ADAPTER_FILE): AdapterInfo {
  if (!existsSync(file))
    throw new InvalidFieldError(
      "adapter",
      `the Harbor agent adapter ${file}`,
      "is missing (it ships with fire in harbor/; reinstall fire)",
    );
  const module = basename(file).replace(/\.py$/, "");
  if (!/^[A-Za-z_]\w*$/.test(module) || !file.endsWith(".py"))
    throw new InvalidFieldError(
      "adapter",
      `the Harbor agent adapter ${file}`,
      "is not a Python module file (NAME.py)",
    );
  const text = readFileSync(file, "utf8");
  for (const cls of Object.values(ADAPTER_CLASS))
    if (!new RegExp(`^class ${cls}\\(`, "m").test(text))
      throw new InvalidFieldError(
        "adapter",
        `the Harbor agent adapter ${file}`,
        `defines no class ${cls}`,
      );
  return { file: resolve(file), module, dir: dirname(resolve(file)), sha256: sha256Hex(text) };
}

/**
 * Re-reads an arm's payload and checks every file against its manifest; returns the
 * manifest's own sha256 (the pin the adapter is given). Throws naming the first file that
 * is missing or changed.
 */
export function verifyPayload(dir: string): string {
  const manifestFile = join(dir, PAYLOAD_MANIFEST);
  let text: string;
  try {
    text = readFileSync(manifestFile, "utf8");
  } catch {
    throw new NotFoundError(`hook payload: ${manifestFile} is missing`);
  }
  const manifest = parsePayloadManifest(text, manifestFile);
  for (const [name, digest] of Object.entries(manifest.files)) {
    const file = join(dir, name);
    if (!existsSync(file)) throw new NotFoundError(`hook payload: ${file} is missing`);
    const actual = sha256Hex(readFileSync(file));
    if (actual !== digest)
      throw new ConflictError(
        `hook payload: ${file} has sha256 ${actual}, its manifest says ${digest} (changed after it was written)`,
      );
  }
  return sha256Hex(text);
}

interface RuntimeEntry {
  libc: Libc;
  arch: string;
  file: string;
  /** sha256 of the node binary (checked in the sandbox after unpacking). */
  sha256: string;
  /** sha256 of the gzipped file (checked on the host before upload). */
  gzSha256: string;
  source: string;
}

function hashingTap(hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

/**
 * Packs the host's Linux node runtimes for the adapter to upload (gzipped, both hashes in
 * `runtimes.json`), once per screen: an entry whose binary hash is unchanged is reused.
 */
export async function packNodeRuntimes(
  dir: string,
  runtimes: Partial<Record<Libc, NodeBinary>>,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const indexFile = join(dir, RUNTIMES_INDEX);
  let old: RuntimeEntry[] = [];
  try {
    old = (JSON.parse(await readFile(indexFile, "utf8")) as { runtimes: RuntimeEntry[] }).runtimes;
  } catch {
    old = [];
  }
  const entries: RuntimeEntry[] = [];
  for (const [libc, bin] of Object.entries(runtimes) as [Libc, NodeBinary][]) {
    const file = `node-${libc}-${bin.arch}.gz`;
    const packed = join(dir, file);
    const sha256 = await fileSha256(bin.path);
    const prev = old.find((e) => e.file === file && e.sha256 === sha256);
    if (prev && existsSync(packed) && (await fileSha256(packed)) === prev.gzSha256) {
      entries.push(prev);
      continue;
    }
    const gz = createHash("sha256");
    const tmp = `${packed}.${process.pid}.tmp`;
    await pipeline(
      createReadStream(bin.path),
      createGzip(),
      hashingTap(gz),
      createWriteStream(tmp),
    );
    await rename(tmp, packed);
    entries.push({
      libc,
      arch: bin.arch,
      file,
      sha256,
      gzSha256: gz.digest("hex"),
      source: bin.path,
    });
  }
  for (const e of old)
    if (!entries.some((n) => n.file === e.file)) await rm(join(dir, e.file), { force: true });
  await writeFile(indexFile, `${JSON.stringify({ runtimes: entries }, null, 2)}\n`);
}

async function fileSha256(file: string): Promise<string> {
  const h = createHash("sha256");
  await pipeline(
    createReadStream(file),
    new Writable({
      write(chunk: Buffer, _enc, done) {
        h.update(chunk);
        done();
      },
    }),
  );
  return h.digest("hex");
}

/** The agent flags and payload flags of one arm's Harbor command under the adapter. */
export function adapterFlags(opts: {
  adapter: AdapterInfo;
  harness: PayloadHarness;
  payload: ArmPayload | undefined;
  payloadSha256: string | undefined;
  nodeDir: string | undefined;
}): { agentFlags: string; hookFlags: string } {
  const agentFlags = `--agent-import-path ${shellQuote(`${opts.adapter.module}:${ADAPTER_CLASS[opts.harness]}`)}`;
  if (!opts.payload || !opts.payloadSha256) return { agentFlags, hookFlags: "" };
  const kw = (k: string, v: string) => `--ak ${shellQuote(`${k}=${v}`)}`;
  const hookFlags = [
    kw("fire_payload", opts.payload.dir),
    kw("fire_payload_sha256", opts.payloadSha256),
    ...(opts.nodeDir ? [kw("fire_node", opts.nodeDir)] : []),
  ].join(" ");
  return { agentFlags, hookFlags };
}

/** PYTHONPATH with the adapter's folder first (Harbor imports the module by name). */
export function adapterPythonPath(adapter: AdapterInfo, current = process.env.PYTHONPATH): string {
  return current ? `${adapter.dir}:${current}` : adapter.dir;
}
