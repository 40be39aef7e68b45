/**
 * The trimmed text between `<tag>` and `</tag>` of the first of `tags` that opens and closes
 * in `text` (earliest opening first), else undefined. By index, not a lazy pattern between
 * runs of white space, which is cubic on a long text whose tag never closes.
 */
export function taggedText(text: string, tags: readonly string[]): string | undefined {
  const opened = tags
    .map((tag) => ({ tag, at: text.indexOf(`<${tag}>`) }))
    .filter((o) => o.at >= 0)
    .sort((x, y) => x.at - y.at);
  for (const { tag, at } of opened) {
    const from = at + tag.length + 2;
    const end = text.indexOf(`</${tag}>`, from);
    if (end >= 0) return text.slice(from, end).trim();
  }
  return undefined;
}
