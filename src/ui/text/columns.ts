/** A table column: the width it wants, the least it can live with, how it gives way. */
export interface ColumnSpec {
  want: number;
  min: number;
  /** Takes the room left over (at most one column should). */
  flex?: boolean;
  /** Dropped when even minimum widths do not fit; higher drops first (0 never). */
  drop?: number;
}

/**
 * Column widths for a terminal `width` (a one-space gap between columns): the flex column
 * grows into spare room; when room is short, droppable columns shrink to their minimum
 * first, then the flex column, then the others; then droppable columns go (width 0),
 * highest `drop` first.
 */
export function layoutColumns(width: number, specs: readonly ColumnSpec[]): number[] {
  const w = specs.map((s) => s.want);
  const used = () => w.reduce((a, b) => a + b, 0) + Math.max(0, w.filter((x) => x > 0).length - 1);
  const flex = specs.findIndex((s) => s.flex);
  if (used() < width && flex >= 0) w[flex]! += width - used();
  const shrink = (i: number) => {
    const over = used() - width;
    if (over > 0 && w[i]! > 0) w[i] = Math.max(specs[i]!.min, w[i]! - over);
  };
  const order = specs
    .map((s, i) => ({ i, drop: s.drop ?? 0 }))
    .filter((x) => x.drop > 0)
    .sort((a, b) => b.drop - a.drop);
  for (const { i } of order) shrink(i);
  if (flex >= 0) shrink(flex);
  for (let i = 0; i < specs.length && used() > width; i++) shrink(i);
  for (const { i } of order) {
    if (used() <= width) break;
    w[i] = 0;
    if (flex >= 0 && used() < width) w[flex]! += width - used();
  }
  return w;
}
