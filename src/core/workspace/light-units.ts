import { statSync } from "node:fs";
import { type FaultFacts, faultFacts } from "../mine/faults/index.js";
import type { FaultMarkers } from "../mine/faults/types.js";
import type { Attempt } from "../model/attempt.js";
import { EventStore, type UnitRef } from "./event-store.js";
import { outsideOf } from "./head.js";
import { lightAttempt } from "./index-attempts.js";
import { type IndexInfo, indexFile, type WrittenIndex } from "./index-file.js";
import { shapeOf } from "./index-table.js";
import type { Workspace } from "./load.js";
import type { UnitResult } from "./parse-cache.js";

/**
 * What a light load keeps of its units (`LoadOptions.light`): each unit's attempts as
 * index-backed ones once its parse-cache entry is written, the fault facts read while their
 * events were at hand, and where each unit's entry is, so the workspace it returns reads the
 * events as an open from the index does.
 */
export class LightUnits {
  private readonly units: UnitRef[] = [];
  private readonly store: EventStore;
  private readonly facts = new Map<Attempt, FaultFacts>();
  private readonly texts = new Map<string, string>();

  constructor(
    cacheDir: string,
    optionsKey: string,
    private readonly markers: FaultMarkers,
  ) {
    this.store = new EventStore(cacheDir, optionsKey, this.units);
  }

  /** The unit's attempts as light ones (its entry is in the cache), their fault facts kept. */
  lighten(r: UnitResult, i: number, ref: UnitRef): UnitResult {
    // the cache entry is read back by attempt id: a unit that repeats an id stays whole
    if (new Set(r.attempts.map((a) => a.id)).size !== r.attempts.length) return r;
    this.units[i] = ref;
    const attempts = r.attempts.map((a) => {
      const l = lightAttempt(a, this.store, i);
      this.facts.set(l, faultFacts(a, this.markers));
      // one string per task text (100,000 attempts of 300 tasks hold 300, not 100,000)
      const text = this.texts.get(a.taskText);
      if (text !== undefined) (l as { taskText: string }).taskText = text;
      else this.texts.set(a.taskText, a.taskText);
      return l;
    });
    return { ...r, attempts };
  }

  /** The fault facts of a light attempt (undefined: not one of these). */
  factsOf(a: Attempt): FaultFacts | undefined {
    return this.facts.get(a);
  }

  /**
   * The index the load wrote: where each light unit's entry is now (a unit from the cache, a
   * shard compacted since: one read each), and the workspace's index facts, since its light
   * attempts are what a read of that index gives.
   */
  indexed(ws: Workspace, index: WrittenIndex, passedOver: readonly (readonly [string, string])[]) {
    for (const [i, u] of index.units.entries()) if (this.units[i]) this.units[i] = u;
    const file = indexFile(ws.dir);
    let writtenMs = Date.now();
    try {
      writtenMs = statSync(file).mtimeMs;
    } catch {
      /* written a moment ago: now is as good */
    }
    const info: IndexInfo = {
      digest: index.digest,
      file,
      faults: index.faults,
      byId: new Map(ws.attempts.map((a) => [a.id, a])),
      eventCounts: new Map(ws.attempts.map((a) => [a.id, shapeOf(a).events])),
      unitPaths: new Set(index.units.map((u) => u.path)),
      outside: outsideOf(index.units),
      writtenMs,
      passedOver: new Map(passedOver),
    };
    return info;
  }
}
