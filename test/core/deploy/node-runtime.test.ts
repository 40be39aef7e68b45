import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inspectNodeBinary, payloadRuntimes } from "../../../src/core/deploy/node-runtime.js";
import { DomainError } from "../../../src/core/errors.js";
import type { ScreenPlan } from "../../../src/core/screening/plan/schema.js";
import {
  imageLibc,
  preflightPayload,
  taskImage,
} from "../../../src/core/screening/run/payload-preflight.js";

const temp = () => mkdtempSync(join(tmpdir(), "fire-node-rt-"));

describe("the payload's Node runtime", () => {
  it("reads the C library of a Linux node binary from its ELF interpreter", () => {
    const own = inspectNodeBinary(process.execPath);
    expect(own?.libc).toBe("glibc"); // this machine's node (Debian)
    expect(["x86_64", "aarch64"]).toContain(own?.arch);
    const text = join(temp(), "node");
    writeFileSync(text, "#!/bin/sh\necho not node\n");
    expect(inspectNodeBinary(text)).toBeUndefined();
    expect(inspectNodeBinary(join(temp(), "missing"))).toBeUndefined();
  });

  it("checks a given runtime instead of trusting it", () => {
    const fake = join(temp(), "node-musl");
    writeFileSync(fake, "not an ELF");
    const r = payloadRuntimes({ FIRE_PAYLOAD_NODE_MUSL: fake });
    expect(r.runtimes.musl).toBeUndefined();
    expect(r.problems).toEqual([`FIRE_PAYLOAD_NODE_MUSL=${fake} is not a Linux musl node binary`]);
    expect(r.runtimes.glibc?.libc).toBe("glibc");
  });

  it("refuses before any trial a musl image without a musl runtime, naming task and image", () => {
    const dataset = temp();
    for (const [task, from] of [
      ["deb", "FROM python:3.12-slim-bookworm"],
      ["alp", "FROM --platform=linux/amd64 alpine:3.20"],
    ] as const) {
      mkdirSync(join(dataset, task, "environment"), { recursive: true });
      writeFileSync(join(dataset, task, "environment", "Dockerfile"), `${from}\nRUN true\n`);
    }
    expect(taskImage(join(dataset, "alp"))).toBe("alpine:3.20");
    expect(imageLibc("alpine:3.20")).toBe("musl");
    expect(imageLibc("ghcr.io/x/node:20-alpine")).toBe("musl");
    expect(imageLibc("ubuntu:24.04")).toBe("glibc");
    const plan = (ids: string[]) =>
      ({
        arms: [{ name: "policy", files: ["p.json"] }],
        tasks: ids.map((id) => ({ id })),
      }) as unknown as ScreenPlan;
    expect(
      preflightPayload({ plan: plan(["deb"]), datasetDir: dataset, env: {} }).runtimes.glibc,
    ).toBeDefined();
    const run = () =>
      preflightPayload({ plan: plan(["deb", "alp"]), datasetDir: dataset, env: {} });
    expect(run).toThrow(DomainError);
    expect(run).toThrow(
      "hook payload: task alp runs in alpine:3.20, a musl image, and there is no musl node runtime to mount (have: glibc)",
    );
  });
});
