// Reads JSON records out of a CLI's captured output, skipping the noise lines around them.

export type JsonObject = Record<string, unknown>;

// Every JSON object that starts a line: one-line records (JSONL) and pretty-printed objects
// (a line that is just `{` up to the next line that is just `}`), in the order they appear.
export function readJsonObjects(text: string): JsonObject[] {
  const lines = text.split(/\r?\n/);
  const objects: JsonObject[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line.startsWith('{')) continue;
    const single = toObject(line);
    if (single) {
      objects.push(single);
      continue;
    }
    if (lines[i] !== '{') continue;
    const end = lines.indexOf('}', i + 1);
    const block = end === -1 ? undefined : toObject(lines.slice(i, end + 1).join('\n'));
    if (block) {
      objects.push(block);
      i = end;
    }
  }
  return objects;
}

// The first `"key": "value"` string in text that may be cut off mid-record (for early peeks).
export function peekJsonString(text: string, key: string): string | undefined {
  return new RegExp(`"${key}"\\s*:\\s*"([^"\\\\]+)"`).exec(text)?.[1];
}

// The value as an object, or undefined.
export function toObject(value: unknown): JsonObject | undefined {
  if (typeof value === 'string') {
    try {
      return toObject(JSON.parse(value) as unknown);
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

// The value as a string, or undefined.
export function toText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// The value as a finite number, or 0 (token and cost fields the CLI left out count as none).
export function toCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
