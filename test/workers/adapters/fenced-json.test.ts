import { describe, expect, it } from 'vitest';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';

describe('fenced-json', () => {
  it('returns the parsed body of a single json block', () => {
    expect(lastFencedJson('Done.\n\n```json\n{"status": "completed"}\n```\n')).toEqual({ status: 'completed' });
  });

  it('returns the last json block when there are several', () => {
    const text = '```json\n{"n": 1}\n```\nthen\n```json\n{"n": 2}\n```';
    expect(lastFencedJson(text)).toEqual({ n: 2 });
  });

  it('ignores fences in other languages', () => {
    const text = '```json\n{"n": 1}\n```\n```ts\nconst n = 2;\n```';
    expect(lastFencedJson(text)).toEqual({ n: 1 });
  });

  it('reads a block that starts the text and one with CRLF line ends', () => {
    expect(lastFencedJson('```json\r\n[1, 2]\r\n```')).toEqual([1, 2]);
  });

  it('accepts an upper-case language tag and an indented fence', () => {
    expect(lastFencedJson('  ```JSON\n  {"a": true}\n  ```')).toEqual({ a: true });
  });

  it('returns undefined when there is no json block', () => {
    expect(lastFencedJson('no fences here\n```\n{"a": 1}\n```')).toBeUndefined();
  });

  it('returns undefined when the last json block does not parse, even if an earlier one does', () => {
    expect(lastFencedJson('```json\n{"a": 1}\n```\n```json\n{"a": \n```')).toBeUndefined();
  });

  it('returns undefined for an unclosed block', () => {
    expect(lastFencedJson('```json\n{"a": 1}\n')).toBeUndefined();
  });
});
