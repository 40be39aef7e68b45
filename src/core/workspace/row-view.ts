/**
 * A read-only map whose values are rows of a table: one key → row map serves several views
 * (an index's attempts, faults and event counts), instead of a Map of 100,000 entries each.
 */
export class RowView<V> implements ReadonlyMap<string, V> {
  constructor(
    private readonly rows: ReadonlyMap<string, number>,
    private readonly at: (row: number) => V,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  get(key: string): V | undefined {
    const row = this.rows.get(key);
    return row === undefined ? undefined : this.at(row);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, self?: unknown): void {
    for (const [key, row] of this.rows) fn.call(self, this.at(row), key, this);
  }

  keys(): MapIterator<string> {
    return this.rows.keys();
  }

  *values(): MapIterator<V> {
    for (const row of this.rows.values()) yield this.at(row);
  }

  *entries(): MapIterator<[string, V]> {
    for (const [key, row] of this.rows) yield [key, this.at(row)];
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}
