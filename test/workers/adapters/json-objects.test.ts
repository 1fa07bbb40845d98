import { describe, expect, it } from 'vitest';
import { peekJsonString, readJsonObjects } from '../../../workers/adapters/json-objects.js';

describe('json-objects', () => {
  it('reads one object per JSONL line and skips noise lines', () => {
    const text = 'warning: something\n{"a":1}\nnot json {"b":2}\n{broken\n{"c":3}\n';
    expect(readJsonObjects(text)).toEqual([{ a: 1 }, { c: 3 }]);
  });

  it('reads a pretty-printed object between noise lines', () => {
    const text = 'Loaded cached credentials.\n{\n  "response": "hi",\n  "stats": {\n    "n": 1\n  }\n}\ntrailing noise\n';
    expect(readJsonObjects(text)).toEqual([{ response: 'hi', stats: { n: 1 } }]);
  });

  it('skips a lone brace that opens no valid object', () => {
    expect(readJsonObjects('{\nnot json\n}\n{"a":1}')).toEqual([{ a: 1 }]);
  });

  it('ignores arrays and scalars', () => {
    expect(readJsonObjects('[1,2]\n"text"\n42\n')).toEqual([]);
  });

  it('peeks a string field from output cut off mid-record', () => {
    expect(peekJsonString('{"type":"thread.started","thread_id":"abc-1"}\n{"type":"tu', 'thread_id')).toBe('abc-1');
    expect(peekJsonString('{"type":"thread.sta', 'thread_id')).toBeUndefined();
  });
});
