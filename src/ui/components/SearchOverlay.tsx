import { Box } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { printable } from "../../core/printable.js";
import { useTheme } from "../contexts/ThemeContext.js";
import type { SearchItem } from "../data/search.js";
import { createSearcher } from "../data/search.js";
import { KeyLayer } from "../hooks/useKeypress.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { SEARCH_KEYS } from "../keys/tables.js";
import { cutTo, fitCell } from "../text/wrap.js";
import { Text } from "./Text.js";
import { TextField } from "./TextField.js";
import { VirtualList } from "./VirtualList.js";

export interface SearchOverlayProps {
  items: SearchItem[];
  width: number;
  height: number;
  onOpen: (item: SearchItem) => void;
  onClose: () => void;
}

/** Ids keep both ends (middle ellipsis); names are cut at the end. */
function titleCell(r: SearchItem, w: number): string {
  const t = printable(r.title);
  if (r.kind === "attempt" || r.kind === "task") return fitCell(t, w);
  return fitCell(t.length > w ? `${cutTo(t, w - 1)}…` : t, w);
}

/** `/`: search (literal, then fuzzy with fuse.js) over tasks, attempts, clusters, candidates. */
export function SearchOverlay({
  items,
  width,
  height,
  onOpen,
  onClose,
}: SearchOverlayProps): ReactNode {
  const theme = useTheme();
  const [query, setQuery] = useState("");
  const index = useMemo(() => createSearcher(items), [items]);
  const results = useMemo(() => (query ? index.search(query, 50) : []), [index, query]);
  const listHeight = Math.max(3, height - 5);
  const titleW = Math.max(12, Math.min(48, width - 18));
  // border and padding 4, cursor 2, kind 10, title, a space
  const detailW = Math.max(0, width - 17 - titleW);
  const cursor = useListCursor(results.length, listHeight);
  const open = () => {
    const item = results[cursor.current()];
    if (item) onOpen(item);
  };
  useKeyTable(
    SEARCH_KEYS,
    { move: (input, key) => cursor.handle(input, key), open, close: onClose },
    { layer: KeyLayer.Overlay },
  );
  return (
    <Box flexDirection="column" borderStyle="round" width={width} paddingX={1}>
      <TextField
        label="/"
        value={query}
        active
        width={width - 4}
        onChange={(q) => {
          setQuery(q);
          cursor.setIndex(0);
        }}
      />
      <Text color={theme.muted} wrap="truncate-end">
        {query
          ? `${results.length}${results.length === 50 ? "+" : ""} matches for “${query}”`
          : " "}
      </Text>
      <VirtualList
        items={results}
        selected={cursor.index}
        height={listHeight}
        keyOf={(r) => `${r.kind}:${r.ref}`}
        empty={query ? "no match" : "type to search tasks, attempts, clusters, candidates"}
        renderRow={(r) => (
          // kind and title, then the detail as its own text node cut to the row's room first:
          // Ink measures every text node whole on every frame, grapheme by grapheme unless ASCII
          <>
            <Box flexShrink={0}>
              <Text>
                <Text color={theme.muted}>{r.kind.padEnd(10)}</Text>
                {titleCell(r, titleW)}{" "}
              </Text>
            </Box>
            <Text color={theme.muted} wrap="truncate-end">
              {printable(r.detail.slice(0, detailW + 1))}
            </Text>
          </>
        )}
      />
    </Box>
  );
}
