import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import type { Attempt } from "../core/model/attempt.js";
import { redact } from "../core/redact.js";
import { sha256 } from "./cache.js";
import type { BuiltPrompt } from "./prompt.js";
import { waitFor } from "./retry.js";
import type { LlmSession } from "./session.js";
import {
  completionBody,
  fromCache,
  liveCall,
  type PreparedCall,
  prepareCall,
  type StructuredResult,
  type StructuredSpec,
} from "./structured.js";

/** Persisted so a restarted run resumes polling the same batch instead of paying twice. */
const BatchState = z.strictObject({
  batchId: z.string(),
  inputFileId: z.string(),
  model: z.string(),
  keys: z.array(z.string()),
  createdAt: z.string(),
});
type BatchState = z.infer<typeof BatchState>;

const OutputLine = z.looseObject({
  custom_id: z.string(),
  response: z.looseObject({ status_code: z.number(), body: z.unknown() }).nullable().optional(),
  error: z.looseObject({ message: z.string().optional() }).nullable().optional(),
});

const ChatBody = z.looseObject({
  choices: z.array(
    z.looseObject({ message: z.looseObject({ content: z.string().nullable().optional() }) }),
  ),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number() }).optional(),
});

const TERMINAL = new Set(["completed", "failed", "expired", "cancelled"]);

function statePath(session: LlmSession, keys: string[]): string {
  const id = sha256(`${session.config.model}\u0000${[...keys].sort().join(",")}`).slice(0, 24);
  return join(session.cache.dir, "batches", `${id}.json`);
}

async function readState(file: string): Promise<BatchState | undefined> {
  try {
    return BatchState.parse(JSON.parse(await readFile(file, "utf8")));
  } catch {
    return undefined;
  }
}

/** Upload the JSONL, create the batch, persist its id before anything else can fail. */
async function submit(
  session: LlmSession,
  spec: (i: number) => StructuredSpec<unknown>,
  calls: { call: PreparedCall; i: number }[],
  file: string,
): Promise<BatchState> {
  const jsonl = calls
    .map(({ call, i }) =>
      JSON.stringify({
        custom_id: call.key,
        method: "POST",
        url: "/v1/chat/completions",
        body: completionBody(session, spec(i), call.messages),
      }),
    )
    .join("\n");
  const uploaded = await session.openai.files.create(
    { file: await toFile(Buffer.from(`${jsonl}\n`), "fire-label-batch.jsonl"), purpose: "batch" },
    { signal: session.signal },
  );
  const batch = await session.openai.batches.create(
    { input_file_id: uploaded.id, endpoint: "/v1/chat/completions", completion_window: "24h" },
    { signal: session.signal },
  );
  const state: BatchState = {
    batchId: batch.id,
    inputFileId: uploaded.id,
    model: session.config.model,
    keys: calls.map(({ call }) => call.key),
    createdAt: new Date().toISOString(),
  };
  await mkdir(join(session.cache.dir, "batches"), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(state)}\n`);
  return state;
}

/** Poll until the batch ends; undefined when the run was aborted meanwhile. */
async function poll(
  session: LlmSession,
  id: string,
  onCompleted: (n: number) => void,
): Promise<Batch | undefined> {
  const opts = { signal: session.signal };
  try {
    let batch = await session.openai.batches.retrieve(id, opts);
    while (!TERMINAL.has(batch.status)) {
      if (session.report.batch) session.report.batch.status = batch.status;
      onCompleted(batch.request_counts?.completed ?? 0);
      await waitFor(session.config.batchPollMs, session.signal);
      batch = await session.openai.batches.retrieve(id, opts);
    }
    return batch;
  } catch (err) {
    if (session.signal?.aborted) return undefined;
    throw err;
  }
}

/**
 * Label through the OpenAI Batch API: cached attempts are answered from the cache,
 * the rest go into one JSONL batch; answers are validated like live ones (a bad one
 * gets its repair request live) and cached. Resumable: the batch id sits in
 * `<cacheDir>/batches/`, keyed by the set of pending prompts.
 */
export async function labelInBatch<T>(
  session: LlmSession,
  attempts: Attempt[],
  prompts: BuiltPrompt[],
  specOf: (a: Attempt) => StructuredSpec<T>,
  onDone: (done: number) => void,
): Promise<StructuredResult<T>[]> {
  const { report } = session;
  const specs = attempts.map(specOf);
  const spec = (i: number) => specs[i] as StructuredSpec<unknown>;
  const results: (StructuredResult<T> | undefined)[] = new Array(attempts.length);
  const pending: { call: PreparedCall; i: number }[] = [];
  for (const [i] of attempts.entries()) {
    const call = prepareCall(session, spec(i), prompts[i]?.messages ?? []);
    const hit = await fromCache(session, specs[i] as StructuredSpec<T>, call);
    if (hit !== undefined) {
      report.cacheHits += 1;
      results[i] = { ok: true, value: hit, cached: true };
    } else pending.push({ call, i });
  }
  let done = attempts.length - pending.length;
  onDone(done);
  if (pending.length === 0) return results as StructuredResult<T>[];

  const file = statePath(
    session,
    pending.map((p) => p.call.key),
  );
  let state = await readState(file);
  const resumed = state !== undefined;
  const admitted: typeof pending = [];
  const reservations = new Map<string, { tokens: number; dollars: number }>();
  if (!state) {
    for (const p of pending) {
      const r = session.budget.reserve(p.call.estimatedTokens, session.config.maxOutputTokens);
      if (r.ok) {
        admitted.push(p);
        reservations.set(p.call.key, r);
      } else {
        report.stoppedBy ??= r.limit;
        results[p.i] = { ok: false, reason: `budget exhausted (${r.limit})`, stopped: true };
      }
    }
    if (admitted.length === 0) return results as StructuredResult<T>[];
    state = await submit(session, spec, admitted, file);
    report.requests += admitted.length;
  } else {
    const keys = new Set(state.keys);
    admitted.push(...pending.filter((p) => keys.has(p.call.key)));
  }
  report.batch = { id: state.batchId, status: "submitted", resumed };

  const batch = await poll(session, state.batchId, (n) => onDone(done + n));
  if (!batch) {
    // Aborted: the batch keeps running server-side; its id stays in the state file.
    report.stoppedBy ??= "aborted";
    for (const { i } of admitted)
      results[i] = {
        ok: false,
        reason: `aborted: batch ${state.batchId} continues; re-run to resume`,
        stopped: true,
      };
    return results as StructuredResult<T>[];
  }
  report.batch.status = batch.status;

  const answers = new Map<string, string>();
  const lineErrors = new Map<string, string>();
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    const text = await (
      await session.openai.files.content(fileId, { signal: session.signal })
    ).text();
    for (const raw of text.split("\n")) {
      if (!raw.trim()) continue;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        continue; // a torn line: its attempt ends up "batch … without an answer"
      }
      const line = OutputLine.safeParse(json);
      if (!line.success) continue;
      const { custom_id: id, response, error } = line.data;
      const body = ChatBody.safeParse(response?.body);
      if (response?.status_code === 200 && body.success) {
        answers.set(id, body.data.choices[0]?.message.content ?? "");
        const usage = {
          promptTokens: body.data.usage?.prompt_tokens ?? 0,
          completionTokens: body.data.usage?.completion_tokens ?? 0,
        };
        report.promptTokens += usage.promptTokens;
        report.completionTokens += usage.completionTokens;
        report.costUsd += session.budget.settle(
          reservations.get(id) ?? { tokens: 0, dollars: 0 },
          usage,
        );
        reservations.delete(id);
      } else {
        lineErrors.set(
          id,
          redact(error?.message ?? `HTTP ${response?.status_code ?? "?"} in batch`),
        );
      }
    }
  }
  for (const r of reservations.values())
    session.budget.settle(r, { promptTokens: 0, completionTokens: 0 });
  for (const { call, i } of admitted) {
    const answer = answers.get(call.key);
    if (answer !== undefined) {
      results[i] = await session.limit(() =>
        liveCall(session, specs[i] as StructuredSpec<T>, call, call.key, answer),
      );
    } else {
      const why = lineErrors.get(call.key) ?? `batch ${batch.status} without an answer`;
      results[i] = { ok: false, reason: `batch: ${why}`, stopped: false };
    }
    done += 1;
    onDone(done);
  }
  await rm(file, { force: true });
  return results as StructuredResult<T>[];
}
