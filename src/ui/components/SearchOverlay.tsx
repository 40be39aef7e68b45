import { Box, Text } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { printable } from "../../core/printable.js";
import { useTheme } from "../contexts/ThemeContext.js";
import type { SearchItem } from "../data/search.js";
import { createSearcher } from "../data/search.js";
import { KeyLayer, useKeypress } from "../hooks/useKeypress.js";
import { TextField } from "./TextField.js";
import { VirtualList } from "./VirtualList.js";

export interface SearchOverlayProps {
  items: SearchItem[];
  width: number;
  height: number;
  onOpen: (item: SearchItem) => void;
  onClose: () => void;
}

/** `/`: fuzzy search (fuse.js) over tasks, attempts, clusters and candidates. */
export function SearchOverlay({
  items,
  width,
  height,
  onOpen,
  onClose,
}: SearchOverlayProps): ReactNode {
  const theme = useTheme();
  const [query, setQuery] = useState("");
  const [sel, setSel] = useState(0);
  const index = useMemo(() => createSearcher(items), [items]);
  const searched = query;
  const results = useMemo(() => (searched ? index.search(searched, 50) : []), [index, searched]);
  useKeypress(
    (_input, key) => {
      if (key.downArrow) setSel((s) => Math.min(s + 1, Math.max(0, results.length - 1)));
      else if (key.upArrow) setSel((s) => Math.max(0, s - 1));
      else return false;
      return true;
    },
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
          setSel(0);
        }}
        onSubmit={() => {
          const item = results[sel];
          if (item) onOpen(item);
        }}
        onCancel={onClose}
      />
      <Text color={theme.muted}>
        {searched
          ? `${results.length}${results.length === 50 ? "+" : ""} matches for “${searched}”`
          : " "}
      </Text>
      <VirtualList
        items={results}
        selected={sel}
        height={Math.max(3, height - 5)}
        keyOf={(r) => `${r.kind}:${r.ref}`}
        empty={query ? "no match" : "type to search tasks, attempts, clusters, candidates"}
        renderRow={(r) => (
          <Text wrap="truncate-end">
            <Text color={theme.muted}>{r.kind.padEnd(10)}</Text>
            {printable(r.title)}
            <Text color={theme.muted}> {printable(r.detail)}</Text>
          </Text>
        )}
      />
    </Box>
  );
}
