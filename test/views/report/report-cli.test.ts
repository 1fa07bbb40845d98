// `team report` from the CLI: a run still running, bad arguments, and data that cannot break out of the page.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embedJson } from '../../../src/views/report/html.js';
import { makeProject, removeProjects } from '../../helpers/project.js';

afterAll(removeProjects);

function embedded(html: string): any {
  const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)![1]!;
  return JSON.parse(json);
}

describe('report command', () => {
  it('reports a run whose attempt is still running, with no end event', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const started = await project.team('state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'me');
    expect(started.exitCode, started.stderr).toBe(0);
    const result = await project.team('report');
    expect(result.exitCode, result.stderr).toBe(0);
    const out = join(project.dir, '.team/runs', runId, 'report.html');
    expect(result.stdout).toBe(`${out}\n`);
    const data = embedded(readFileSync(out, 'utf8'));
    expect(data.attempts).toMatchObject([{ id: 't1#1', status: 'running' }]);
    expect(data.attempts[0].end).toBeUndefined();
    // No worker started it: no lane (a stage's name is no worker's).
    expect(data.attempts[0].lane).toBeUndefined();
    // A run made by state commands alone is driven by hand, not by an orchestrator: its attempt is uncertain.
    expect(data.undriven).toBeUndefined();
    expect(data.attention).toEqual(['uncertain: t1 attempt 1 started with no terminal event']);
  });

  it('refuses an --out that is a folder, or in a missing folder, and writes nothing', async () => {
    const project = makeProject();
    await project.startRun();
    const folder = await project.team('report', '--out', project.dir);
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toBe(`team: --out: ${project.dir} is a folder, not a file\n`);
    const missing = await project.team('report', '--out', join(project.dir, 'no/such/r.html'));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`team: --out: the folder ${join(project.dir, 'no/such')} does not exist\n`);
    expect(existsSync(join(project.dir, 'no'))).toBe(false);
  });

  it('says there is no run, with exit 2', async () => {
    const result = await makeProject().team('report');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^team: no run in /);
  });

  it('embeds JSON in which no text can close the script element', () => {
    const text = embedJson({ evidence: '</script><script>alert(1)</script>\u2028' });
    expect(text).not.toContain('<');
    expect(JSON.parse(text)).toEqual({ evidence: '</script><script>alert(1)</script>\u2028' });
  });
});
