// Where a run's live spans go (src/views/trace/target.ts): team.telemetry and the standard OTEL_* variables.
import { describe, expect, it } from 'vitest';
import { LIVE_TIMEOUT_MS, liveTarget } from '../../src/views/trace/target.js';

const on = { enabled: true, content: false };

describe('liveTarget', () => {
  it('is none when nothing names a receiver, or when team.telemetry.enabled, OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turn it off', () => {
    expect(liveTarget(on, {})).toBeUndefined();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(liveTarget(on, env)).toBeDefined();
    expect(liveTarget({ ...on, enabled: false }, env)).toBeUndefined();
    expect(liveTarget(on, { ...env, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(liveTarget(on, { ...env, OTEL_TRACES_EXPORTER: 'console, none' })).toBeUndefined();
    expect(liveTarget(on, { ...env, OTEL_TRACES_EXPORTER: 'otlp' })).toBeDefined();
  });

  it("takes the config's endpoint and protocol over the variables', shows the receiver without credentials, and bounds the wait unless a variable sets it", () => {
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:secret@collector.example/v1/traces?token=abc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
    const fromEnv = liveTarget(on, env)!;
    expect(fromEnv.endpoint).toBeUndefined();
    expect(fromEnv.shown).toBe('https://collector.example/v1/traces');
    expect(fromEnv.timeoutMs).toBe(LIVE_TIMEOUT_MS);
    const fromConfig = liveTarget({ ...on, endpoint: 'http://127.0.0.1:4318', protocol: 'http/json', content: true }, { ...env, OTEL_EXPORTER_OTLP_TIMEOUT: '30000' })!;
    expect(fromConfig.endpoint).toBe('http://127.0.0.1:4318');
    expect(fromConfig.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL).toBe('http/json');
    expect(fromConfig.content).toBe(true);
    expect(fromConfig.timeoutMs).toBeUndefined();
    expect(liveTarget(on, { ...env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })!.content).toBe(true);
  });
});
