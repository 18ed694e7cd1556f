/**
 * The judge's HTML report opened in headless Chromium, as a person would open the file: it
 * loads with no console error and no request (self-contained), draws one view per listed case
 * (each canvas has lines on it), draws the implementation's answer (hit point, face normal, axis)
 * in its own colour where the case carries one, and a drag turns a view (its pixels change).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import { launchBrowser, type LaunchedBrowser } from '../../src/node/browser.ts';
import { caseFiles, htmlReport, judgeScene, parseSceneText, runReference, sceneResultFromCpu, viewsOf, type CaseView, type JudgedGroup, type SceneResult } from '../../src/judge/index.ts';
import { VIEW_COLOURS } from '../../src/judge/html.ts';
import type { CaseReport, Comparison } from '../../src/compare/compare.ts';

let browser: LaunchedBrowser;
let page: Page;
const errors: string[] = [];
const requests: string[] = [];
let groups: JudgedGroup[];
let judged: number;

/** A group of hand-made cases carrying the implementation's answers: a ray and a pair. */
function answeredGroup(): JudgedGroup {
  const I = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  const cases: CaseReport[] = [
    {
      index: 0, verdict: 'mismatch', reason: 't-error', detail: 'ray 0: box 0: t 4.5 vs reference 4',
      input: { ray: { index: 0, origin: [-5, 0.2, 0.1], direction: [1, 0, 0], maxDistance: null }, boxes: [{ index: 0, center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I }], solid: true },
      answer: { kind: 'ray', box: 0, t: 4.5, face: 0, inside: false }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false },
    },
    {
      index: 1, verdict: 'mismatch', reason: 'gap-error', detail: 'pair 1 (0, 1): gap 0.5 on A1, reference 1 on A0',
      input: { a: { index: 0, center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I }, b: { index: 1, center: [3, 0, 0], halfExtents: [1, 1, 1], axes: I } },
      answer: { kind: 'pair', overlap: false, gap: 0.5, axis: 1 }, expected: { kind: 'pair', overlap: false, gap: 1, axis: 0 },
    },
  ];
  const comparison: Comparison = { family: 'handMade', total: 2, agree: 0, ambiguous: 0, mismatch: 2, ambiguousByReason: {}, mismatchByReason: { 't-error': 1, 'gap-error': 1 }, cases, worstRatio: 0, ok: false };
  return { name: 'hand-made/answers', comparison: { comparisons: [comparison], total: 2, mismatch: 2, ambiguous: 0, ok: false, unitRoundoff: 2 ** -24 } };
}

beforeAll(async () => {
  // Two groups with mismatches made on purpose: rays (t off by 2%) and pairs (overlap flipped).
  const { manifest, files } = caseFiles({ suites: ['random/rays', 'pairs/containment'] });
  groups = manifest.suites.map((s) => {
    const scene = parseSceneText(files.find((f) => f.name === s.scene)!.text);
    const result = JSON.parse(JSON.stringify(sceneResultFromCpu(scene, runReference(scene)))) as SceneResult;
    let changed = 0;
    for (const e of result.rays ?? []) {
      if (e.hit && !e.inside && e.t > 5 && changed < 3) {
        (e as { t: number }).t *= 1.02;
        changed++;
      }
    }
    for (const p of (result.pairs ?? []).slice(0, 2)) {
      (p as { overlap: boolean }).overlap = !p.overlap;
    }
    return { name: s.name, comparison: judgeScene(scene, result) };
  });
  judged = groups.reduce((s, g) => s + viewsOf(g).length, 0);
  groups.push(answeredGroup());
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') {
      errors.push(m.text());
    }
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    requests.push(r.url());
    void r.continue();
  });
  await page.setViewport({ width: 1100, height: 900 });
  await page.setContent(htmlReport(groups, { title: 'report in Chromium' }), { waitUntil: 'load' });
  await page.waitForFunction(() => (window as unknown as { __reportReady?: boolean }).__reportReady === true, { timeout: 30_000 });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** Pixels of a canvas that are not the background. */
function drawn(p: Page, k: number): Promise<number> {
  return p.evaluate((i: number) => {
    const c = document.querySelector(`canvas[data-view="${i}"]`) as HTMLCanvasElement;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let j = 3; j < px.length; j += 4) {
      n += px[j]! > 0 ? 1 : 0;
    }
    return n;
  }, k);
}

describe('the HTML report in Chromium', () => {
  it('one drawn view per listed case, no console error, no request', async () => {
    const expected = groups.reduce((s, g) => s + viewsOf(g).length, 0);
    // Every planted mismatch (3 t off by 2%, 2 flipped overlaps) has a view; the ambiguous cases
    // get views too, one of each reason in turn.
    expect(groups.slice(0, 2).flatMap((g) => viewsOf(g)).filter((v) => v.verdict === 'mismatch')).toHaveLength(3 + 2);
    expect(expected).toBe(judged + 2);
    expect(await page.$$eval('canvas[data-view]', (c) => c.length)).toBe(expected);
    for (let k = 0; k < expected; k++) {
      expect(await drawn(page, k), `view ${k}`).toBeGreaterThan(200);
    }
    expect(errors).toEqual([]);
    // setContent loads nothing; any request would be a reference to something outside the file.
    expect(requests.filter((u) => !u.startsWith('about:'))).toEqual([]);
  });

  it('the implementation\'s answer is drawn in its colour wherever a view carries one', async () => {
    const views = await page.evaluate(() => JSON.parse(document.getElementById('views')!.textContent!) as unknown);
    const drawnBy = await page.evaluate(() => (window as unknown as { __reportDrawn: { lines: Record<string, number>; points: Record<string, number> }[] }).__reportDrawn);
    const impl = VIEW_COLOURS.implementation;
    const withAnswer: number[] = [];
    (views as CaseView[]).forEach((v, k) => {
      const lines = v.lines.filter((l) => l[2] === impl).length;
      const points = v.points.filter((p) => p[1] === impl).length;
      // What the page drew is what the view holds: segments and points of the implementation's colour.
      expect(drawnBy[k]!.lines[impl] ?? 0, `view ${k} lines`).toBe(lines);
      expect(drawnBy[k]!.points[impl] ?? 0, `view ${k} points`).toBe(points);
      if (lines + points > 0) {
        withAnswer.push(k);
      }
    });
    // The hand-made group's two views (the last two): the ray's hit and normal arrow, the pair's axis.
    const n = (views as CaseView[]).length;
    expect(withAnswer).toEqual(expect.arrayContaining([n - 2, n - 1]));
    expect(drawnBy[n - 2]).toMatchObject({ lines: { [impl]: 3, [VIEW_COLOURS.reference]: 3 }, points: { [impl]: 1, [VIEW_COLOURS.reference]: 1 } });
    expect(drawnBy[n - 1]).toMatchObject({ lines: { [impl]: 1 }, points: { [impl]: 1 } });
    // And on the canvas: pixels of the implementation's colour.
    for (const k of [n - 2, n - 1]) {
      const px = await page.evaluate((i: number, colour: string) => {
        const c = document.querySelector(`canvas[data-view="${i}"]`) as HTMLCanvasElement;
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        const want = [1, 3, 5].map((j) => parseInt(colour.slice(j, j + 2), 16));
        let m = 0;
        for (let j = 0; j < d.length; j += 4) {
          m += d[j + 3]! > 128 && Math.abs(d[j]! - want[0]!) < 24 && Math.abs(d[j + 1]! - want[1]!) < 24 && Math.abs(d[j + 2]! - want[2]!) < 24 ? 1 : 0;
        }
        return m;
      }, k, impl);
      expect(px, `view ${k}`).toBeGreaterThan(10);
    }
    expect(await page.$$eval('details pre[data-input]', (p) => p.length)).toBe(n);
    expect(errors).toEqual([]);
  });

  it('a drag turns a view', async () => {
    const box = (await (await page.$('canvas[data-view="0"]'))!.boundingBox())!;
    const before = await page.evaluate(() => (document.querySelector('canvas[data-view="0"]') as HTMLCanvasElement).toDataURL());
    await page.mouse.move(box.x + 100, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + 180, box.y + 130, { steps: 5 });
    await page.mouse.up();
    const after = await page.evaluate(() => (document.querySelector('canvas[data-view="0"]') as HTMLCanvasElement).toDataURL());
    expect(after).not.toBe(before);
    expect(errors).toEqual([]);
  });
});
