/**
 * The judge's HTML report opened in headless Chromium, as a person would open the file: it
 * loads with no console error and no request (self-contained), draws one view per listed case
 * (each canvas has lines on it), and a drag turns a view (its pixels change).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import { launchBrowser, type LaunchedBrowser } from '../../src/node/browser.ts';
import { caseFiles, htmlReport, judgeScene, parseSceneText, runReference, sceneResultFromCpu, viewsOf, type JudgedGroup, type SceneResult } from '../../src/judge/index.ts';

let browser: LaunchedBrowser;
let page: Page;
const errors: string[] = [];
const requests: string[] = [];
let groups: JudgedGroup[];

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
    expect(expected).toBe(3 + 2);
    expect(await page.$$eval('canvas[data-view]', (c) => c.length)).toBe(expected);
    for (let k = 0; k < expected; k++) {
      expect(await drawn(page, k), `view ${k}`).toBeGreaterThan(200);
    }
    expect(errors).toEqual([]);
    // setContent loads nothing; any request would be a reference to something outside the file.
    expect(requests.filter((u) => !u.startsWith('about:'))).toEqual([]);
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
