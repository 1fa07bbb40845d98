// `team report` opened in Debian's headless Chromium: no console error, one bar per attempt, evidence on click, no network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, openBrowser } from '../../helpers/browser.js';
import { removeProjects } from '../../helpers/project.js';
import { eventsOf, makeSimProject, type RunRead, type SimProject } from '../../helpers/sim-project.js';
import type { TeamResult } from '../../helpers/team.js';

// Agent text is hostile: this evidence must show as text and never run.
const HOSTILE = '</script><img src=x onerror="window.__pwned=1">&amp; <b>bold</b>';

const SCENARIO = {
  name: 'report',
  plan: { tasks: [{ id: 't1', title: 'Schema', acceptance: ['a'] }, { id: 't2', title: 'Handler', blockedBy: ['t1'], acceptance: ['b'] }, { id: 't3', title: 'Docs', acceptance: ['c'] }] },
  verify: { failPasses: 1, defects: [{ id: 'd1', description: 'Empty names pass.', task: 't2' }] },
  defaults: { sleepMs: 30 },
  rules: [{ match: { stage: 'team-exec', task: 't2', attempt: 1 }, do: { fail: HOSTILE } }],
};

afterAll(removeProjects);

describe('report in a browser', () => {
  let project: SimProject;
  let result: TeamResult;
  let report: TeamResult;
  let run: RunRead;
  let html: string;
  let page: Page;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    project = makeSimProject(SCENARIO);
    result = await project.team('2:executor', 'refuse empty names', '--agent', 'sim');
    run = project.readRun();
    const out = join(project.dir, 'report.html');
    report = await project.team('report', '--out', out);
    html = readFileSync(out, 'utf8');
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(out).href);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('writes one file with everything inline and loads with no console error and no request', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stdout.trim()).toBe(join(project.dir, 'report.html'));
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(consoleErrors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
  });

  it('draws one bar per attempt in the log, in worker lanes, with the retry marked', async () => {
    const attempts = eventsOf(run.events, 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
    const bars = await page.locator('.bar').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.attempt));
    expect(bars.sort()).toEqual(attempts.sort());
    expect(await page.locator('.bar[data-attempt="t2#2"]').textContent()).toContain('↻');
    expect(await page.locator('.bar[data-attempt="t2#1"]').getAttribute('class')).toContain('outcome-failed');
    const lanes = await page.locator('.row.lane').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.lane));
    expect(lanes).toEqual(expect.arrayContaining(['worker-1', 'worker-2']));
    expect(await page.locator('.band[data-loop="1"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: artifactPath('report-timeline.png'), fullPage: true });
  });

  it('shows an attempt\'s evidence as plain text when its bar is clicked', async () => {
    await page.locator('.bar[data-attempt="t2#1"]').click();
    expect(await page.locator('#evidence h2').textContent()).toBe('t2 — Handler · attempt 1');
    expect(await page.locator('#evidence .field-evidence').textContent()).toContain(HOSTILE);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    await page.screenshot({ path: artifactPath('report-evidence.png'), fullPage: true });
  });

  it('renders the handoffs, the usage tables and a filter over the event table', async () => {
    expect(await page.locator('.handoff').count()).toBe(eventsOf(run.events, 'handoff_written').length);
    expect(await page.locator('#usage table').count()).toBe(3);
    await page.locator('#filter').fill('task_retry');
    const visible = await page.locator('#events tr:not([hidden]) td:nth-child(2)').allTextContents();
    expect(visible).toEqual(eventsOf(run.events, 'task_retry').map(() => 'task_retry'));
    expect(await page.locator('#event-count').textContent()).toBe(`${visible.length} of ${run.events.length} events`);
  });
});
