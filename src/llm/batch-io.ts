import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { sha256 } from "./cache.js";
import type { LlmSession } from "./client.js";
import { waitFor } from "./retry.js";
import { completionBody, type PreparedCall, type StructuredSpec } from "./structured.js";

/* Batch API plumbing: state file, JSONL upload, polling, result download. */
/** Persisted so a restarted run resumes polling the same batch instead of paying twice. */
const BatchState = z.strictObject({
  batchId: z.string(),
  inputFileId: z.string(),
  model: z.string(),
  keys: z.array(z.string()),
  createdAt: z.string(),
});
export type BatchState = z.infer<typeof BatchState>;

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

export const TERMINAL = new Set(["completed", "failed", "expired", "cancelled"]);

export function statePath(session: LlmSession, keys: string[]): string {
  const id = sha256(`${session.config.model}\u0000${[...keys].sort().join(",")}`).slice(0, 24);
  return join(session.cache.dir, "batches", `${id}.json`);
}

export async function readState(file: string): Promise<BatchState | undefined> {
  try {
    return BatchState.parse(JSON.parse(await readFile(file, "utf8")));
  } catch {
    return undefined;
  }
}

/** Upload the JSONL, create the batch, persist its id before anything else can fail. */
export async function submit(
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
    requestOptions(session),
  );
  const batch = await session.openai.batches.create(
    { input_file_id: uploaded.id, endpoint: "/v1/chat/completions", completion_window: "24h" },
    requestOptions(session),
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

/** Poll until the batch ends. */
export async function poll(
  session: LlmSession,
  id: string,
  onCompleted: (n: number) => void,
): Promise<Batch> {
  const opts = requestOptions(session);
  let batch = await session.openai.batches.retrieve(id, opts);
  while (!TERMINAL.has(batch.status)) {
    if (session.report.batch) session.report.batch.status = batch.status;
    onCompleted(batch.request_counts?.completed ?? 0);
    await waitFor(session.config.batchPollMs, session.signal);
    batch = await session.openai.batches.retrieve(id, opts);
  }
  return batch;
}

/** Batch-endpoint calls: the SDK's own retries (they respect retry-after), and the run's abort signal. */
export function requestOptions(session: LlmSession): { signal?: AbortSignal; maxRetries: number } {
  return {
    ...(session.signal ? { signal: session.signal } : {}),
    maxRetries: session.config.maxRetries,
  };
}

export interface BatchLines {
  answers: Map<string, string>;
  lineErrors: Map<string, string>;
  usage: Map<string, { promptTokens: number; completionTokens: number }>;
}

/** Fetch and parse the output and error files of a finished batch, by custom_id. */
export async function download(session: LlmSession, batch: Batch): Promise<BatchLines> {
  const out: BatchLines = { answers: new Map(), lineErrors: new Map(), usage: new Map() };
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    const text = await (await session.openai.files.content(fileId, requestOptions(session))).text();
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
        out.answers.set(id, body.data.choices[0]?.message.content ?? "");
        out.usage.set(id, {
          promptTokens: body.data.usage?.prompt_tokens ?? 0,
          completionTokens: body.data.usage?.completion_tokens ?? 0,
        });
      } else {
        out.lineErrors.set(
          id,
          session.scrub(error?.message ?? `HTTP ${response?.status_code ?? "?"} in batch`),
        );
      }
    }
  }
  return out;
}
