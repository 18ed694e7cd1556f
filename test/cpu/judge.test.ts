/**
 * The verification kit on the CPU (src/judge/, `webgpu-obb judge` and `cases`):
 * - the exported suites are valid scene files, deterministic, with a manifest that counts them;
 * - the library's own CPU result files judge clean (no mismatch, no ambiguity);
 * - result files corrupted in known ways are found and classified exactly: a wrong box, a t off
 *   by 1%, a missing pair, an extra pair, a flipped normal; a missing entry, a wrong count, a
 *   non-number, an unsorted list are malformed (exit 2, one line naming the value); a float64
 *   result rounded to float32 agrees under the float32 model and not under float64's;
 * - an independent float64 implementation written here (its own slab test and 15-axis SAT)
 *   agrees everywhere under the float64 model, ambiguous only where the reference says a
 *   decision is fragile;
 * - the JUnit report parses as XML (fast-xml-parser) with one test case per group and the
 *   failures where the mismatches are; the HTML report has one view per listed case.
 * The GPU's own result files are judged in test/node/judge.test.ts, the HTML report drawn in
 * Chromium in test/gpu/judgeReport.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAT_AXIS_NAMES } from '../../src/constants.ts';
import { parseSceneText, type Scene } from '../../src/files/scene.ts';
import { sceneResultFromCpu, type SceneResult } from '../../src/files/results.ts';
import { caseFiles, htmlReport, judgeScene, junitReport, parseResult, ResultError, runReference, viewsOf } from '../../src/judge/index.ts';
import { formatResult } from '../../src/cli/main.ts';
import { runCli as run } from './cliRun.ts';
import { BOX_F64, RAY_F64 } from '../../src/core/types.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/scenes/generate.ts';

/** A mixed scene: rays, listed pairs, all pairs, as JSON text. */
function mixedSceneText(seed: number): string {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(120, rnd, { extent: 9, halfMin: 0.3, halfMax: 1.6 });
  const rays = randomRays(600, boxes, rnd, { extent: 14 });
  const d = boxes.data;
  const box = (b: number): unknown => {
    const o = b * BOX_F64.STRIDE;
    const v = (k: number): number[] => [d[o + k]!, d[o + k + 1]!, d[o + k + 2]!];
    return { center: v(0), halfExtents: v(3), axes: [v(6), v(9), v(12)] };
  };
  const ray = (r: number): unknown => {
    const o = r * RAY_F64.STRIDE;
    return { origin: [rays.data[o]!, rays.data[o + 1]!, rays.data[o + 2]!], direction: [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!], maxDistance: null };
  };
  const pairs = Array.from({ length: 300 }, () => [Math.floor(rnd() * 120), Math.floor(rnd() * 120)]);
  return JSON.stringify({ boxes: Array.from({ length: 120 }, (_, b) => box(b)), rays: Array.from({ length: 600 }, (_, r) => ray(r)), pairs, allPairs: true });
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
type Hit = Extract<NonNullable<SceneResult['rays']>[number], { hit: true }>;

let scene: Scene;
let good: SceneResult;
beforeAll(() => {
  scene = parseSceneText(mixedSceneText(1701));
  good = clone(sceneResultFromCpu(scene, runReference(scene)));
});

/** A ray whose reference hit is robust: t well away from 0, not near an edge (verdict agree after a 1e-9 nudge). */
function robustHit(result: SceneResult, skip = 0): number {
  let seen = 0;
  for (const [r, e] of (result.rays ?? []).entries()) {
    if (e.hit && !e.inside && e.t > 1) {
      const nudged = clone(result);
      (nudged.rays![r] as { t: number }).t = e.t * (1 + 1e-9);
      const c = judgeScene(scene, nudged).comparisons[0]!;
      if (c.agree === c.total && seen++ === skip) {
        return r;
      }
    }
  }
  throw new Error('no robust hit');
}

describe('judgeScene on result files', () => {
  it('the reference\'s own result file judges clean', () => {
    const v = judgeScene(scene, good);
    expect(v.comparisons.map((c) => c.family)).toEqual(['closestHit', 'obbPairs', 'allPairs']);
    expect(v.total).toBe(600 + 300 + (120 * 119) / 2);
    expect(v.mismatch).toBe(0);
    expect(v.ambiguous).toBe(0);
  });

  it('a wrong box, a t off by 1%, a flipped normal: each found once, with its reason', () => {
    const r1 = robustHit(good, 0), r2 = robustHit(good, 1), r3 = robustHit(good, 2);
    const bad = clone(good);
    // A box the ray misses, far from it: the farthest box centre from the hit point.
    const hit1 = bad.rays![r1] as Hit;
    let far = 0, farD = -1;
    for (let b = 0; b < scene.boxes.count; b++) {
      const o = b * BOX_F64.STRIDE;
      const dd = Math.hypot(scene.boxes.data[o]! - hit1.point[0], scene.boxes.data[o + 1]! - hit1.point[1], scene.boxes.data[o + 2]! - hit1.point[2]);
      if (dd > farD) {
        farD = dd;
        far = b;
      }
    }
    (bad.rays![r1] as { box: number }).box = far;
    (bad.rays![r2] as { t: number }).t *= 1.01;
    const n = (bad.rays![r3] as Hit).normal!;
    (bad.rays![r3] as { normal: number[] }).normal = n.map((x) => -x);
    const c = judgeScene(scene, bad).comparisons[0]!;
    expect(c.mismatch).toBe(3);
    expect(c.mismatchByReason).toEqual({ 'wrong-box': 1, 't-error': 1, face: 1 });
    expect(c.cases.filter((k) => k.verdict === 'mismatch').map((k) => k.index).sort((a, b) => a - b)).toEqual([r1, r2, r3].sort((a, b) => a - b));
  });

  it('a missing pair and an extra pair in the all-pairs list: each found, classified', () => {
    const list = good.allPairs!;
    expect(list.length).toBeGreaterThan(10);
    // An extra pair: two boxes far apart (not touching).
    const overlapping = new Set(list.map(([i, j]) => `${i},${j}`));
    const d = scene.boxes.data;
    let extra: [number, number] | undefined;
    for (let i = 0; i < scene.boxes.count && !extra; i++) {
      for (let j = i + 1; j < scene.boxes.count; j++) {
        const dist = Math.hypot(d[i * 15]! - d[j * 15]!, d[i * 15 + 1]! - d[j * 15 + 1]!, d[i * 15 + 2]! - d[j * 15 + 2]!);
        if (dist > 10 && !overlapping.has(`${i},${j}`)) {
          extra = [i, j];
          break;
        }
      }
    }
    const bad = clone(good);
    const missing = bad.allPairs!.splice(3, 1)[0]!;
    bad.allPairs!.push(extra!);
    bad.allPairs!.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const c = judgeScene(scene, bad).comparisons[2]!;
    expect(c.total).toBe((120 * 119) / 2);
    expect(c.mismatchByReason).toEqual({ 'missing-pair': 1, 'extra-pair': 1 });
    expect(c.agree).toBe(c.total - 2);
    const details = c.cases.map((k) => k.detail).join('\n');
    expect(details).toContain(`pair (${missing[0]}, ${missing[1]}) in the reference only`);
    expect(details).toContain(`pair (${extra![0]}, ${extra![1]}) listed by the implementation only`);
  });

  it('a listed pair with the wrong overlap decision and a gap on another axis', () => {
    const bad = clone(good);
    const k = bad.pairs!.findIndex((p) => p.gap > 0.5);
    bad.pairs![k] = { ...bad.pairs![k]!, overlap: true, gap: -0.1 };
    const c = judgeScene(scene, bad).comparisons[1]!;
    expect(c.mismatch).toBe(1);
    expect(c.mismatchByReason).toEqual({ overlap: 1 });
  });

  it('a float64 result rounded to float32 agrees under the float32 model, not under float64\'s', () => {
    const rounded = clone(good);
    for (const e of rounded.rays!) {
      if (e.hit) {
        const h = e as { t: number; normal?: number[] };
        h.t = Math.fround(h.t);
        if (h.normal) {
          h.normal = h.normal.map(Math.fround);
        }
      }
    }
    for (const p of rounded.pairs!) {
      (p as { gap: number }).gap = Math.fround(p.gap);
    }
    expect(judgeScene(scene, rounded, { precision: 'f32' }).mismatch).toBe(0);
    const strict = judgeScene(scene, rounded, { precision: 'f64' });
    expect(strict.mismatch).toBeGreaterThan(100);
    expect(Object.keys(strict.comparisons[0]!.mismatchByReason)).toEqual(['t-error']);
    expect(judgeScene(scene, good, { precision: 'f64' }).mismatch).toBe(0);
  });

  it.each([
    ['a missing entry', (r: SceneResult) => { r.rays!.pop(); }, 'rays', /has 599 entries; the scene has 600/],
    ['a missing query', (r: SceneResult) => { delete (r as { pairs?: unknown }).pairs; }, 'pairs', /is missing: the scene asks for listed pairs/],
    ['a non-number', (r: SceneResult) => { (r.rays!.find((e) => e.hit) as { t: unknown }).t = '3.2'; }, /^rays\[\d+\]\.t$/, /is not a number \(got string "3.2"\)/],
    ['a box out of range', (r: SceneResult) => { (r.rays!.find((e) => e.hit) as { box: number }).box = 120; }, /^rays\[\d+\]\.box$/, /is not a box index \(0\.\.119; got 120\)/],
    ['an unsorted list', (r: SceneResult) => { r.allPairs!.reverse(); }, 'allPairs[1]', /the list must be sorted/],
    ['a repeated pair', (r: SceneResult) => { r.allPairs!.splice(1, 0, r.allPairs![0]!); }, 'allPairs[1]', /repeats the pair before it/],
    ['i >= j', (r: SceneResult) => { r.allPairs![0] = [r.allPairs![0]![1], r.allPairs![0]![0]]; }, 'allPairs[0]', /does not have i < j/],
    ['an axis name', (r: SceneResult) => { (r.pairs![0] as { axis: string }).axis = 'X9'; }, 'pairs[0].axis', /is not a SAT axis name/],
    ['an unknown entry field', (r: SceneResult) => { (r.rays![0] as Record<string, unknown>)['distance'] = 1; }, /^rays\[0\]\.distance$/, /is not a field of this entry/],
  ])('%s is malformed, named by its path', (_what, corrupt, path, message) => {
    const bad = clone(good);
    corrupt(bad);
    let error: unknown;
    try {
      parseResult(bad, scene);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResultError);
    const e = error as ResultError;
    if (typeof path === 'string') {
      expect(e.path).toBe(path);
    } else {
      expect(e.path).toMatch(path);
    }
    expect(e.detail).toMatch(message);
  });
});

// An independent float64 implementation: its own slab test (Kay–Kajiya in the box frame) and its
// own 15-axis SAT (Gottschalk et al. 1996), brute force, written without the library's reference.
function ownClosestHit(s: Scene, r: number): { box: number; t: number; normal?: number[]; inside: boolean } | undefined {
  const rd = s.rays!.data, bd = s.boxes.data;
  const o = r * 7;
  let best: { box: number; t: number; normal?: number[]; inside: boolean } | undefined;
  for (let b = 0; b < s.boxes.count; b++) {
    const q = b * 15;
    let t0 = 0, t1 = rd[o + 6]!, face = -1, ok = true;
    for (let k = 0; k < 3 && ok; k++) {
      const ax = [bd[q + 6 + 3 * k]!, bd[q + 7 + 3 * k]!, bd[q + 8 + 3 * k]!];
      const p = (rd[o]! - bd[q]!) * ax[0]! + (rd[o + 1]! - bd[q + 1]!) * ax[1]! + (rd[o + 2]! - bd[q + 2]!) * ax[2]!;
      const dd = rd[o + 3]! * ax[0]! + rd[o + 4]! * ax[1]! + rd[o + 5]! * ax[2]!;
      const h = bd[q + 3 + k]!;
      if (Math.abs(dd) < 1e-300) {
        ok = Math.abs(p) <= h;
        continue;
      }
      let a = (-h - p) / dd, c = (h - p) / dd;
      let fa = 2 * k + 1;
      if (a > c) {
        [a, c] = [c, a];
        fa = 2 * k;
      }
      if (a > t0) {
        t0 = a;
        face = fa;
      }
      t1 = Math.min(t1, c);
      ok = t0 <= t1;
    }
    if (!ok || (best && !(t0 < best.t))) {
      continue;
    }
    best = face < 0
      ? { box: b, t: 0, inside: true }
      : { box: b, t: t0, normal: [0, 1, 2].map((i) => (face & 1 ? -1 : 1) * bd[q + 6 + 3 * (face >> 1) + i]!), inside: false };
  }
  return best;
}

function ownSat(s: Scene, i: number, j: number): { gap: number; axis: number } {
  const d = s.boxes.data;
  const axes = (b: number): number[][] => [0, 1, 2].map((k) => [d[b * 15 + 6 + 3 * k]!, d[b * 15 + 7 + 3 * k]!, d[b * 15 + 8 + 3 * k]!]);
  const A = axes(i), B = axes(j);
  const ha = [3, 4, 5].map((k) => d[i * 15 + k]!), hb = [3, 4, 5].map((k) => d[j * 15 + k]!);
  const t = [0, 1, 2].map((k) => d[j * 15 + k]! - d[i * 15 + k]!);
  const dot = (x: number[], y: number[]): number => x[0]! * y[0]! + x[1]! * y[1]! + x[2]! * y[2]!;
  const cross = (x: number[], y: number[]): number[] => [x[1]! * y[2]! - x[2]! * y[1]!, x[2]! * y[0]! - x[0]! * y[2]!, x[0]! * y[1]! - x[1]! * y[0]!];
  let best = -Infinity, axis = 0;
  const candidates = [...A, ...B, ...A.flatMap((a) => B.map((b) => cross(a, b)))];
  candidates.forEach((l, k) => {
    const len = Math.sqrt(dot(l, l));
    if (k >= 6 && len * len < 1e-6) {
      return; // a degenerate edge-cross axis (near-parallel edges), as the published test skips it
    }
    const ra = ha.reduce((sum, h, m) => sum + h * Math.abs(dot(A[m]!, l)), 0);
    const rb = hb.reduce((sum, h, m) => sum + h * Math.abs(dot(B[m]!, l)), 0);
    const gap = (Math.abs(dot(t, l)) - ra - rb) / len;
    if (gap > best) {
      best = gap;
      axis = k;
    }
  });
  return { gap: best, axis };
}

describe('an independent float64 implementation', () => {
  it('agrees everywhere under the float64 model (ambiguous only where the reference calls a decision fragile)', () => {
    const s = parseSceneText(mixedSceneText(1702));
    const rays = Array.from({ length: s.rays!.count }, (_, r) => {
      const h = ownClosestHit(s, r);
      if (!h) {
        return { hit: false };
      }
      const o = r * 7;
      const point = [0, 1, 2].map((k) => s.rays!.data[o + k]! + h.t * s.rays!.data[o + 3 + k]!);
      return { hit: true, box: h.box, t: h.t, point, ...(h.normal ? { normal: h.normal } : {}), inside: h.inside };
    });
    const pairs = Array.from({ length: s.pairs!.length / 2 }, (_, k) => {
      const { gap, axis } = ownSat(s, s.pairs![2 * k]!, s.pairs![2 * k + 1]!);
      return { overlap: gap <= 1e-6, gap, axis: SAT_AXIS_NAMES[axis] };
    });
    const allPairs: number[][] = [];
    for (let i = 0; i < s.boxes.count; i++) {
      for (let j = i + 1; j < s.boxes.count; j++) {
        if (ownSat(s, i, j).gap <= 1e-6) {
          allPairs.push([i, j]);
        }
      }
    }
    const v = judgeScene(s, { backend: 'own', adapter: 'float64 test implementation', rays, pairs, allPairs }, { precision: 'f64' });
    console.log(`independent float64: ${v.total} cases, ${v.mismatch} mismatch, ${v.ambiguous} ambiguous`);
    expect(v.mismatch).toBe(0);
    const fragile = new Set(['grazing-edge', 'in-face-plane', 'origin-on-surface', 'origin-on-exit-face', 'closest-tie', 'edge-or-corner-face', 'touching', 'axis-tie', 'at-max-distance']);
    for (const c of v.comparisons) {
      for (const reason of Object.keys(c.ambiguousByReason)) {
        expect(fragile.has(reason), reason).toBe(true);
      }
    }
  });
});

describe('the exported suites', () => {
  it('are valid scene files, deterministic for a seed, counted by their manifest', () => {
    const a = caseFiles({ seed: 5 });
    const b = caseFiles({ seed: 5 });
    expect(a.files.map((f) => f.text)).toEqual(b.files.map((f) => f.text));
    expect(caseFiles({ seed: 6 }).files[1]!.text).not.toBe(a.files[1]!.text);
    const names = a.manifest.suites.map((s) => s.name);
    for (const want of ['random/rays', 'random/pairs', 'random/all-pairs', 'rays/grazing-edges', 'rays/grazing-corners', 'rays/face-plane',
      'rays/origin-inside-solid', 'rays/origin-on-surface', 'rays/flat-boxes', 'rays/far-from-origin-1e4', 'pairs/near-parallel-edges',
      'pairs/touching-faces', 'pairs/containment', 'pairs/far-from-origin-1e4', 'all-pairs/touching-faces', 'pairs/face-axes-only']) {
      expect(names).toContain(want);
    }
    expect(a.manifest.notExported.map((x) => x.name)).toEqual(['rays/origin-inside-exit', 'rays/origin-on-surface-exit', 'rays/masks-and-exclude']);
    for (const s of a.manifest.suites) {
      const file = a.files.find((f) => f.name === s.scene)!;
      const parsed = parseSceneText(file.text);
      expect(parsed.unknownFields).toEqual([]);
      expect(parsed.boxes.count).toBe(s.boxes);
      expect(parsed.rays?.count).toBe(s.rays);
      expect(parsed.pairs ? parsed.pairs.length / 2 : undefined).toBe(s.pairs);
      expect(parsed.allPairs).toBe(s.allPairs === true);
    }
    // The published face-axes-only case: separated on A1xB2 only.
    const face = parseSceneText(a.files.find((f) => f.name === 'pairs--face-axes-only.scene.json')!.text);
    const ref = runReference(face);
    expect(ref.pairs!.overlap[0]).toBe(0);
    expect(SAT_AXIS_NAMES[ref.pairs!.axis[0]!]).toBe('A1xB2');
    expect(caseFiles({ suites: ['rays/grazing'] }).manifest.suites.map((s) => s.name)).toEqual(['rays/grazing-edges', 'rays/grazing-corners']);
    expect(() => caseFiles({ suites: ['nothing'] })).toThrow(/matches no group/);
  });

  it('the reference\'s results of every group judge clean', () => {
    const { manifest, files } = caseFiles({ seed: 9 });
    for (const s of manifest.suites) {
      const sc = parseSceneText(files.find((f) => f.name === s.scene)!.text);
      const v = judgeScene(sc, clone(sceneResultFromCpu(sc, runReference(sc))));
      expect(v.mismatch, s.name).toBe(0);
      expect(v.ambiguous, s.name).toBe(0);
    }
  }, 60_000);
});

describe('reports', () => {
  it('JUnit: parses as XML, one test case per group, failures where the mismatches are, errors where a file was not judged', () => {
    const bad = clone(good);
    (bad.rays![robustHit(good)] as { t: number }).t *= 1.01;
    const groups = [
      { name: 'mixed/good', comparison: judgeScene(scene, good), seconds: 0.5 },
      { name: 'mixed/bad', comparison: judgeScene(scene, bad), seconds: 0.25 },
      { name: 'mixed/missing', error: 'mixed.result.json: cannot read the result (no such file) & <more>' },
    ];
    const xml = junitReport(groups, 'my <kernel>');
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: { tests: string; failures: string; errors: string; name: string; testsuite: { testcase: { name: string; classname: string; failure?: { message: string; '#text': string }; error?: { message: string } }[] } };
    };
    expect(doc.testsuites).toMatchObject({ tests: '3', failures: '1', errors: '1', name: 'my <kernel>' });
    const cases = doc.testsuites.testsuite.testcase;
    expect(cases.map((c) => c.name)).toEqual(['mixed/good', 'mixed/bad', 'mixed/missing']);
    expect(cases.map((c) => c.classname)).toEqual(['mixed', 'mixed', 'mixed']);
    expect(cases[0]!.failure).toBeUndefined();
    expect(cases[1]!.failure!.message).toMatch(/^1 mismatch in \d+ cases \(t-error 1\)$/);
    expect(cases[1]!.failure!['#text']).toMatch(/closestHit t-error: ray \d+/);
    expect(cases[2]!.error!.message).toBe('mixed.result.json: cannot read the result (no such file) & <more>');
  });

  it('HTML: self-contained, one view per mismatch and per listed ambiguous case', () => {
    const bad = clone(good);
    (bad.rays![robustHit(good, 0)] as { t: number }).t *= 1.01;
    (bad.rays![robustHit(good, 1)] as { t: number }).t *= 0.98;
    bad.allPairs!.splice(0, 1);
    const groups = [{ name: 'mixed/bad', comparison: judgeScene(scene, bad) }];
    const html = htmlReport(groups, { title: 'report test' });
    expect(viewsOf(groups[0]!)).toHaveLength(3);
    expect(html.match(/<canvas [^>]*data-view=/g)).toHaveLength(3);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
  });

  it('HTML: a rare reason after many cases of another still gets a view, with its input; no "GPU" in either report', () => {
    // 16 hits with t 5% long at the lowest indices, then the last hit's normal flipped.
    const bad = clone(good);
    const hits = (bad.rays ?? []).flatMap((e, r) => (e.hit && !e.inside && e.t > 1 ? [r] : []));
    for (const r of hits.slice(0, 16)) {
      (bad.rays![r] as { t: number }).t *= 1.05;
    }
    const last = hits[hits.length - 1]!;
    (bad.rays![last] as { normal: number[] }).normal = (bad.rays![last] as Hit).normal!.map((x) => -x);
    const groups = [{ name: 'mixed/bad', comparison: judgeScene(scene, bad) }];
    const c = groups[0]!.comparison.comparisons[0]!;
    expect(c.mismatchByReason['t-error']).toBeGreaterThan(12);
    expect(c.mismatchByReason.face).toBe(1);
    const views = viewsOf(groups[0]!);
    expect(views).toHaveLength(12);
    expect(views.map((v) => v.reason)).toEqual([...Array<string>(11).fill('t-error'), 'face']);
    const html = htmlReport(groups, { title: 'report test' });
    expect(html).toContain(`<summary>input of case ${last} (JSON)</summary>`);
    expect(html).not.toMatch(/\bGPU\b/);
    expect(junitReport(groups)).not.toMatch(/\bGPU\b/);
  });
});

describe('the commands', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'obb-judge-'));
    writeFileSync(join(dir, 'scene.json'), mixedSceneText(1701));
    writeFileSync(join(dir, 'good.json'), formatResult(good));
    const bad = clone(good);
    (bad.rays![robustHit(good)] as { t: number }).t *= 1.01;
    writeFileSync(join(dir, 'bad.json'), formatResult(bad));
    const short = clone(good);
    short.rays!.pop();
    writeFileSync(join(dir, 'short.json'), formatResult(short));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('judge: exit 0 with no mismatch, 1 with one (reports written), 2 for a result that does not answer its scene', async () => {
    const ok = await run('judge', join(dir, 'scene.json'), join(dir, 'good.json'), '-q');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^implementation: cpu reference \(float64\)$/m);
    expect(ok.out).toMatch(/OK: 0 mismatch, 0 ambiguous in 8040 cases — the implementation agrees/);
    const bad = await run('judge', join(dir, 'scene.json'), join(dir, 'bad.json'), '-q', '--junit', join(dir, 'bad.xml'), '--html', join(dir, 'bad.html'));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/MISMATCH t-error/);
    expect(readFileSync(join(dir, 'bad.xml'), 'utf8')).toContain('failures="1"');
    expect(readFileSync(join(dir, 'bad.html'), 'utf8')).toContain('data-view="0"');
    const short = await run('judge', join(dir, 'scene.json'), join(dir, 'short.json'), '-q');
    expect(short.code).toBe(2);
    expect(short.err).toBe(`webgpu-obb: ${join(dir, 'short.json')}: rays has 599 entries; the scene has 600\n`);
    const none = await run('judge', join(dir, 'scene.json'), join(dir, 'nothing.json'), '-q');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/cannot read the result \(no such file\)/);
    expect((await run('judge', join(dir, 'scene.json'), join(dir, 'good.json'), '--precision', 'f8')).err).toMatch(/--precision must be f32, f16 or f64/);
    expect((await run('judge', join(dir, 'scene.json'))).code).toBe(2);
  });

  it('cases, then judge of the manifest: every group judged, a missing result is exit 2 and named, the rest still judged', async () => {
    const cases = join(dir, 'cases');
    const made = await run('cases', cases, '--suite', 'rays/grazing', '--suite', 'pairs/face-axes-only', '--seed', '3', '-q');
    expect(made.code).toBe(0);
    expect(made.out).toMatch(/^wrote 3 scene files and manifest\.json to /);
    expect(readdirSync(cases).sort()).toEqual(['manifest.json', 'pairs--face-axes-only.scene.json', 'rays--grazing-corners.scene.json', 'rays--grazing-edges.scene.json']);
    const results = join(dir, 'results');
    rmSync(results, { recursive: true, force: true });
    const manifest = JSON.parse(readFileSync(join(cases, 'manifest.json'), 'utf8')) as { suites: { scene: string; result: string }[] };
    mkdirSync(results);
    for (const s of manifest.suites) {
      const sc = parseSceneText(readFileSync(join(cases, s.scene), 'utf8'));
      writeFileSync(join(results, s.result), formatResult(sceneResultFromCpu(sc, runReference(sc))));
    }
    const all = await run('judge', join(cases, 'manifest.json'), results, '-q', '--junit', join(dir, 'all.xml'));
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/^OK: 0 mismatch, 0 ambiguous in \d+ cases over 3 groups$/m);
    rmSync(join(results, manifest.suites[0]!.result));
    const missing = await run('judge', join(cases, 'manifest.json'), results, '-q', '--junit', join(dir, 'missing.xml'));
    expect(missing.code).toBe(2);
    expect(missing.out).toMatch(/^ERR {2}rays\/grazing-edges: .*cannot read the result \(no such file\)$/m);
    expect(missing.out).toMatch(/^ok {3}rays\/grazing-corners/m);
    expect(readFileSync(join(dir, 'missing.xml'), 'utf8')).toContain('errors="1"');
    expect(existsSync(join(dir, 'all.xml'))).toBe(true);
    expect((await run('cases', join(dir, 'c2'), '--size', 'huge')).err).toMatch(/--size must be quick or full/);
    expect((await run('cases', join(dir, 'c3'), '--precision', 'f32')).err).toMatch(/--precision is not an option of cases/);
  });
});
