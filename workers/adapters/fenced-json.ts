// The agent protocol's fallback result: the last fenced ```json block of an agent's final text.

// An opening ```json fence, its body (lazily, up to the next fence line), and the closing ```.
const FENCED_JSON = /(?:^|\n)[ \t]*```json[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/gi;

// The parsed JSON of the last ```json block; undefined when there is none or it does not parse.
export function lastFencedJson(text: string): unknown | undefined {
  let body: string | undefined;
  for (const match of text.matchAll(FENCED_JSON)) body = match[1];
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
