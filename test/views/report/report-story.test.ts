// `team report` of real runs, read in Chromium at 1400 and 800 px: the failed verify and its defects,
// gates, the time axis, restart and cancel markers, worker lanes, stage labels, task titles, usage
// and whether anything drives the run.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, openBrowser } from '../../helpers/browser.js';
import type { GitProject } from '../../helpers/git-project.js';
import { makeProject, removeProjects } from '../../helpers/project.js';
import { eventsOf } from '../../helpers/sim-project.js';
import { DEMO_TASK, makeDemoProject, makeRestartProject, runDemo, startTeam, STUB_ENV, team } from './story-runs.js';
import { waitForEvent } from '../../helpers/wait-event.js';

afterAll(removeProjects);

// Writes the project's report of its latest run to `name` in the project; its path.
async function report(project: GitProject, name: string): Promise<string> {
  const out = join(project.dir, name);
  const result = await team(project, {}, 'report', '--out', out);
  if (result.exitCode !== 0) throw new Error(`team report exited ${result.exitCode}: ${result.stderr}`);
  return out;
}

const texts = (page: Page, selector: string) => page.locator(selector).evaluateAll((nodes) => nodes.map((n) => n.textContent ?? ''));
const rowsOf = (page: Page, selector: string) => page.locator(`${selector} tr`).evaluateAll((rows) => rows.slice(1).map((r) => [...r.children].map((c) => c.textContent)));

describe('report story in a browser', () => {
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let demo: GitProject;
  let restart: GitProject;
  let cancelled: GitProject;
  const files: Record<string, string> = {};
  const errors: string[] = [];

  async function open(name: string, width: number): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(`${name}: ${e.message}`));
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(pathToFileURL(files[name]!).href);
    return page;
  }

  beforeAll(async () => {
    demo = makeDemoProject();
    const ran = await runDemo(demo);
    if (ran.exitCode !== 0) throw new Error(`the demo exited ${ran.exitCode}: ${ran.stderr}`);
    files.demo = await report(demo, 'demo.html');

    restart = makeRestartProject();
    const first = startTeam(restart, STUB_ENV, '3:executor', DEMO_TASK);
    // Killed once t2 and t3 run on their workers (an attempt whose worker may not have started would
    // make resume ask a person).
    await waitForEvent(restart, 'attempt_spawned', (e) => e.task_id === 't2');
    await waitForEvent(restart, 'attempt_spawned', (e) => e.task_id === 't3');
    first.kill();
    await first.exited;
    files.undriven = await report(restart, 'undriven.html');
    const resumed = await team(restart, STUB_ENV, 'resume');
    if (resumed.exitCode !== 0) throw new Error(`team resume exited ${resumed.exitCode}: ${resumed.stderr}`);
    files.restart = await report(restart, 'restart.html');

    cancelled = makeDemoProject();
    const working = startTeam(cancelled, {}, '3:executor', DEMO_TASK, '--agent', 'sim');
    await waitForEvent(cancelled, 'task_started', (e) => e.task_id === 't2');
    files.driven = await report(cancelled, 'driven.html');
    const cancel = await team(cancelled, {}, 'cancel');
    if (cancel.exitCode !== 0) throw new Error(`team cancel exited ${cancel.exitCode}: ${cancel.stderr}`);
    await working.exited;
    files.cancelled = await report(cancelled, 'cancelled.html');
    browser = await openBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws the failed verify unlike the passing one, and shows its verdict and defects', async () => {
    const page = await open('demo', 1400);
    const look = (id: string) => page.locator(`.bar[data-attempt="${id}"]`).evaluate((n) => ({ cls: n.className, bg: getComputedStyle(n).backgroundColor, image: getComputedStyle(n).backgroundImage }));
    const failed = await look('verify-1#1');
    const passed = await look('verify-2#1');
    expect(failed.cls).toContain('verdict-fail');
    expect(passed.cls).not.toContain('verdict-fail');
    expect(failed.bg).not.toBe(passed.bg);
    expect(failed.image).toContain('repeating-linear-gradient');
    expect(passed.image).toBe('none');
    expect(await page.locator('.legend .key-verdict-fail').textContent()).toBe('verify failed (or review rejected)');
    await page.locator('.bar[data-attempt="verify-1#1"]').click();
    expect(await page.locator('#evidence .field-verdict').textContent()).toBe('fail (1 defect)');
    expect(await rowsOf(page, '#evidence table.defects')).toEqual([['d1', 'Empty strings pass the body validation.', 't2']]);
    await page.screenshot({ path: artifactPath('report-1400.png') });
    await page.locator('.bar[data-attempt="verify-2#1"]').click();
    expect(await page.locator('#evidence .field-verdict').textContent()).toBe('pass');
    expect(errors).toEqual([]);
  });

  it('shows each gate of a verify with its command and exit code', async () => {
    const page = await open('restart', 1400);
    await page.locator('.bar[data-attempt="verify-1#1"]').click();
    const gates = await rowsOf(page, '#evidence table.gates');
    const mark = join(restart.dir, '.team', 'gate-marks', 'gate-ran');
    expect(gates.map((g) => g.slice(0, 2))).toEqual([['git --version', 'exit 0'], [`sh -c "test -e ${mark} || { touch ${mark}; exit 3; }"`, 'exit 3']]);
    expect(await page.locator('.bar[data-attempt="verify-1#1"]').getAttribute('class')).toContain('verdict-fail');
    await page.locator('.bar[data-attempt="verify-2#1"]').click();
    expect((await rowsOf(page, '#evidence table.gates')).map((g) => g[1])).toEqual(['exit 0', 'exit 0']);
  });

  it('has a time axis of labelled ticks from the run start that do not overlap, at 1400 and 800 px', async () => {
    for (const width of [1400, 800]) {
      const page = await open('demo', width);
      const labels = await texts(page, '.axis .tick-label');
      expect(labels.length, `${width} px`).toBeGreaterThanOrEqual(3);
      expect(labels[0]).toBe('0s');
      const seconds = labels.map((l) => Number(l.replace(/s$/, '')));
      expect(seconds.every((s, i) => Number.isFinite(s) && (i === 0 || s > seconds[i - 1]!))).toBe(true);
      const boxes = await page.locator('.axis .tick-label').evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect()).map((r) => [r.left, r.right]));
      for (let i = 1; i < boxes.length; i++) expect(boxes[i]![0]!).toBeGreaterThan(boxes[i - 1]![1]!);
    }
  });

  it('labels the restart and cancel markers, with a legend entry for each', async () => {
    const page = await open('restart', 1400);
    const resumes = eventsOf(restart.readRun().events, 'run_resumed');
    expect(resumes).toHaveLength(1);
    expect(await texts(page, '.marker-label')).toEqual(['restart']);
    expect(await page.locator('.marker-label').getAttribute('title')).toBe(`restart: team resume (pid ${resumes[0]!.pid})`);
    expect(await page.locator('.marker.marker-restart').count()).toBe(1);
    expect(await page.locator('.legend .key-restart').textContent()).toBe('restart (team resume)');
    expect(await page.locator('.legend .key-cancel').textContent()).toBe('cancel');
    await page.screenshot({ path: artifactPath('report-restart-1400.png'), fullPage: true, clip: { x: 0, y: 0, width: 1400, height: 1300 } });
    const cancelPage = await open('cancelled', 1400);
    expect(await texts(cancelPage, '.marker-label')).toEqual(['cancel']);
    expect(await cancelPage.locator('.marker-label').getAttribute('title')).toBe('cancel: team cancel');
    // The cancel comes at the run's end: its label stays inside the timeline's card, at both widths.
    for (const width of [1400, 800]) {
      const narrow = width === 1400 ? cancelPage : await open('cancelled', width);
      const [label, card] = await narrow.evaluate(() => [document.querySelector('.marker-label')!.getBoundingClientRect().right, document.querySelector('#timeline')!.closest('section')!.getBoundingClientRect().right]);
      expect(label, `at ${width} px`).toBeLessThanOrEqual(card!);
    }
    // The restart's line runs beneath the bars it crosses (the attempts adopted across the restart):
    // where it crosses one, what is seen there is the bar, never the line through its label.
    const crossings = await page.evaluate(() => {
      const line = document.querySelector('.marker.marker-restart') as HTMLElement;
      line.style.pointerEvents = 'auto';
      const x = line.getBoundingClientRect().left + 1;
      return [...document.querySelectorAll('.bar')]
        .map((bar) => ({ bar, box: bar.getBoundingClientRect() }))
        .filter(({ box }) => box.left < x && box.right > x)
        .map(({ bar, box }) => bar.contains(document.elementFromPoint(x, box.top + box.height / 2)));
    });
    expect(crossings.length).toBeGreaterThan(0);
    expect(crossings.every(Boolean)).toBe(true);
  });

  it('draws one lane per worker that started an attempt, named after it', async () => {
    const page = await open('demo', 1400);
    const lanes = await page.locator('.row.lane').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.lane));
    const workers = [...new Set(eventsOf(demo.readRun().events, 'attempt_spawned').map((e) => e.worker))].sort();
    // Three workers asked, the demo's plan is two wide (t2 and t3 between t1 and t4): worker-3 never started.
    expect(eventsOf(demo.readRun().events, 'workers_sized').map((e) => [e.asked, e.width, e.workers])).toEqual([[3, 2, ['worker-1', 'worker-2']]]);
    expect(workers).toEqual(['lead', 'worker-1', 'worker-2']);
    expect(lanes).toEqual(workers);
  });

  it('draws no lane for an attempt whose worker never started, and lists it apart', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const started = await project.team('state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'me');
    expect(started.exitCode, started.stderr).toBe(0);
    const out = join(project.dir, 'r.html');
    expect((await project.team('report', '--out', out)).exitCode).toBe(0);
    files.idle = out;
    const page = await open('idle', 1400);
    expect(await page.locator('.row.lane').count()).toBe(0);
    expect(await page.locator('.bar').count()).toBe(0);
    expect(await texts(page, '.not-started button')).toEqual(['t1 · a1 (running)']);
    await page.locator('.not-started button').click();
    expect(await page.locator('#evidence .field-worker').textContent()).toBe('never started');
  });

  it('keeps every stage label whole at 800 px, with the full text in its title', async () => {
    for (const width of [1400, 800]) {
      const page = await open('demo', width);
      const bands = await page.locator('.band').evaluateAll((nodes) => nodes.map((n) => ({ text: n.textContent, title: (n as HTMLElement).title, stage: (n as HTMLElement).dataset.stage!, fits: n.scrollWidth <= n.clientWidth, px: n.clientWidth })));
      expect(bands.map((b) => b.stage)).toEqual(eventsOf(demo.readRun().events, 'stage_entered').map((e) => e.stage));
      for (const b of bands) {
        expect(b.fits, `${width} px: ${b.title}`).toBe(true);
        expect(b.title.startsWith(b.stage), b.title).toBe(true);
        const short = b.stage.replace(/^team-/, '');
        expect(['', short, b.title, b.title.replace(/^team-/, '')], `${width} px`).toContain(b.text);
      }
      // A band wide enough for its short name shows a label; how many are depends on how long each
      // stage of the demo took, so the count is asked only of the wide page.
      for (const b of bands.filter((band) => band.px >= 80)) expect(b.text, `${width} px: ${b.title} (${b.px} px)`).not.toBe('');
      if (width === 1400) expect(bands.filter((b) => b.text !== '').length, `${width} px`).toBeGreaterThanOrEqual(5);
    }
    const narrow = await open('demo', 800);
    await narrow.locator('.bar[data-attempt="verify-1#1"]').click();
    await narrow.screenshot({ path: artifactPath('report-800.png'), fullPage: true, clip: { x: 0, y: 0, width: 800, height: 1400 } });
  });

  it('puts each task title beside its id', async () => {
    const page = await open('demo', 1400);
    expect(await page.locator('.bar[data-attempt="t1#1"]').getAttribute('title')).toMatch(/^t1 — Define the input schema · attempt 1/);
    expect(await page.locator('table.usage-task tr[data-key="t2"] td').first().textContent()).toBe('t2 — Validate request bodies');
    await page.locator('.bar[data-attempt="fix-1-d1#1"]').click();
    expect(await page.locator('#evidence h2').textContent()).toBe('fix-1-d1 — Fix defect d1 (task t2) · attempt 1');
  });

  it('fills cost and tokens by task, stage and agent with the numbers `team status` shows', async () => {
    const status = await team(restart, {}, 'status', '--json');
    const usage = JSON.parse(status.stdout).usage as { run: Totals; byStage: Record<string, Totals>; byAgent: Record<string, Totals> };
    expect(usage.byAgent.claude!.costUsd).toBeGreaterThan(0);
    const page = await open('restart', 1400);
    const table = async (name: string) => Object.fromEntries((await rowsOf(page, `table.usage-${name}`)).map((r) => [r[0], r.slice(1)]));
    const shown = (u: Totals) => [`$${u.costUsd.toFixed(4)}`, String(u.tokens.input), String(u.tokens.output)];
    const byStage = await table('stage');
    const byAgent = await table('agent');
    expect(byStage['team-prd']).toEqual(shown(usage.byStage['team-prd']!));
    expect(byAgent.claude).toEqual(shown(usage.byAgent.claude!));
    expect(byAgent.run).toEqual(shown(usage.run));
    expect(byAgent.sim).toEqual(['—', '—', '—']);
    expect(Object.keys(byStage)).toEqual(expect.arrayContaining(['team-plan', 'team-prd', 'team-exec', 'team-verify', 'team-fix', 'run']));
    expect((await table('task')).prd).toEqual(shown(usage.byStage['team-prd']!));
  });

  it('says when nothing drives a running run, and the command that continues it', async () => {
    const undriven = await open('undriven', 1400);
    const runId = restart.readRun().runId;
    expect(await undriven.locator('.undriven').textContent()).toMatch(`nothing drives this run: \`team resume --run ${runId}\` continues it`);
    await undriven.screenshot({ path: artifactPath('report-undriven-1400.png') });
    const driven = await open('driven', 1400);
    expect(await driven.locator('#head .meta b').textContent()).toBe('running');
    expect(await driven.locator('.undriven').count()).toBe(0);
    expect(await (await open('demo', 1400)).locator('.undriven').count()).toBe(0);
  });
});

type Totals = { costUsd: number; tokens: { input: number; output: number } };
