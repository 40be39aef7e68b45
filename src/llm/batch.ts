import { rm } from "node:fs/promises";
import type { Batch } from "openai/resources/batches";
import type { Attempt } from "../core/model/attempt.js";
import { type BatchLines, download, poll, readState, statePath, submit } from "./batch-io.js";
import type { LlmSession } from "./client.js";
import type { BuiltPrompt } from "./prompt.js";
import { describeError } from "./retry.js";
import {
  fromCache,
  liveCall,
  type PreparedCall,
  prepareCall,
  type StructuredResult,
  type StructuredSpec,
} from "./structured.js";

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
      const r = session.budget.reserve(
        p.call.estimatedTokens,
        session.config.maxOutputTokens,
        "batch",
      );
      if (r.ok) {
        admitted.push(p);
        reservations.set(p.call.key, r);
      } else {
        report.stoppedBy ??= r.limit;
        results[p.i] = { ok: false, reason: `budget exhausted (${r.limit})`, stopped: true };
      }
    }
    if (admitted.length === 0) return results as StructuredResult<T>[];
  } else {
    const keys = new Set(state.keys);
    admitted.push(...pending.filter((p) => keys.has(p.call.key)));
  }
  const failAll = (reason: string, stopped: boolean): StructuredResult<T>[] => {
    for (const r of reservations.values())
      session.budget.settle(r, { promptTokens: 0, completionTokens: 0 });
    for (const { i } of admitted) results[i] = { ok: false, reason, stopped };
    return results as StructuredResult<T>[];
  };

  let batch: Batch;
  try {
    if (!state) {
      state = await submit(session, spec, admitted, file);
      report.requests += admitted.length;
    }
    report.batch = { id: state.batchId, status: "submitted", resumed };
    batch = await poll(session, state.batchId, (n) => onDone(done + n));
  } catch (err) {
    // The batch (if created) keeps running server-side; its id stays in the state file.
    const where = state ? `batch ${state.batchId}` : "batch submission";
    if (session.signal?.aborted) {
      report.stoppedBy ??= "aborted";
      return failAll(`aborted: ${where}${state ? " continues; re-run to resume" : ""}`, true);
    }
    return failAll(
      `${where} failed: ${session.scrub(describeError(err))}${state ? " (re-run to resume)" : ""}`,
      false,
    );
  }
  report.batch.status = batch.status;
  const batchErrors = (batch.errors?.data ?? []).map((e) =>
    session.scrub(
      `${e.code ?? "error"}${e.line != null ? ` (line ${e.line})` : ""}: ${e.message ?? ""}`,
    ),
  );
  if (batchErrors.length > 0) report.batch.errors = batchErrors;
  if (batch.status === "failed" || (batchErrors.length > 0 && !batch.output_file_id)) {
    const first = batchErrors.slice(0, 3).join("; ") || "no errors given";
    return failAll(`batch ${batch.id} ${batch.status}: ${first}`, false);
  }

  let lines: BatchLines;
  try {
    lines = await download(session, batch);
  } catch (err) {
    if (session.signal?.aborted) {
      report.stoppedBy ??= "aborted";
      return failAll(`aborted while downloading batch ${batch.id}; re-run to resume`, true);
    }
    return failAll(
      `batch ${batch.id} download failed: ${session.scrub(describeError(err))} (re-run to resume)`,
      false,
    );
  }
  const { answers, lineErrors } = lines;
  for (const [id, usage] of lines.usage) {
    report.promptTokens += usage.promptTokens;
    report.completionTokens += usage.completionTokens;
    report.costUsd += session.budget.settle(
      reservations.get(id) ?? { tokens: 0, dollars: 0 },
      usage,
      "batch",
    );
    reservations.delete(id);
  }
  for (const r of reservations.values())
    session.budget.settle(r, { promptTokens: 0, completionTokens: 0 });
  // Answers are validated (a bad one gets its repair live); a line the batch answered with an
  // error is retried live once through the normal path (retries, json_object fallback, budget).
  await Promise.all(
    admitted.map(async ({ call, i }) => {
      const one = specs[i] as StructuredSpec<T>;
      const id = attempts[i]?.id ?? call.key;
      const answer = answers.get(call.key);
      const lineError = lineErrors.get(call.key);
      if (answer !== undefined) {
        results[i] = await session.limit(() => liveCall(session, one, call, id, answer));
      } else if (lineError !== undefined) {
        const live = await session.limit(() => liveCall(session, one, call, id));
        results[i] = live.ok
          ? live
          : { ...live, reason: `batch: ${lineError}; live retry: ${live.reason}` };
      } else {
        results[i] = {
          ok: false,
          reason: `batch ${batch.status} without an answer`,
          stopped: false,
        };
      }
      done += 1;
      onDone(done);
    }),
  );
  await rm(file, { force: true });
  return results as StructuredResult<T>[];
}
