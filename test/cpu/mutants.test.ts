/**
 * The judge cannot be fooled: outside float32 implementations (./outsiders.ts, written from the
 * semantics of docs/design.md, "Semantics", only) run every exported suite of
 * `webgpu-obb cases` (quick size, LiDAR groups aside) and are judged group by group.
 * - the correct implementation and the ones that make other valid choices (exact-zero or 1e-7
 *   parallel thresholds, slab planes in world space, no skipping of near-parallel edge axes, the
 *   last of equal gaps) have no mismatch anywhere, and no ambiguous case in the exact groups;
 * - each mutant (one classic bug planted) is caught, with the reason that names its bug: a slab
 *   test that makes NaN on rays in a face plane, ties to the larger index, a flat box's back face,
 *   unnormalised directions, the face id off by one, t in the unit-box frame, a six-axis SAT, a
 *   reversed edge-cross sign, one overlapping pair in 1,000 dropped;
 * - NaN never agrees: not in a result file (JSON null), not in typed arrays (compareAnswers);
 * - the command line says the same: `judge MANIFEST DIR` exits 1 for a mutant, 0 for the
 *   correct implementation.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSceneText, type Scene } from '../../src/files/scene.ts';
import { caseFiles, compareAnswers, judgeScene, parseResult, runReference, type CaseSuite, type ReferenceResults } from '../../src/judge/index.ts';
import { castRays, resultFile, type RayImpl, type SatImpl, type SceneJson } from './outsiders.ts';
import { runCli } from './cliRun.ts';

interface Group {
  readonly suite: CaseSuite & { readonly exact?: boolean };
  readonly text: string;
  readonly json: SceneJson;
  readonly scene: Scene;
  reference?: ReferenceResults;
}

const SEED = 20261201;
const { manifest, files } = caseFiles({ seed: SEED, size: 'quick' });
const groups: Group[] = manifest.suites.filter((s) => s.lidars === undefined).map((suite) => {
  const text = files.find((x) => x.name === suite.scene)!.text;
  return { suite, text, json: JSON.parse(text) as SceneJson, scene: parseSceneText(text) };
});

beforeAll(() => {
  for (const g of groups) {
    g.reference = runReference(g.scene);
  }
}, 300_000);

interface Verdicts {
  mismatch: number;
  ambiguous: number;
  /** Ambiguous cases in the groups marked exact. */
  ambiguousInExact: number;
  mismatchByReason: Record<string, number>;
  ambiguousByReason: Record<string, number>;
  /** Groups with a mismatch. */
  failed: string[];
  /** The first listed mismatch of each reason, for messages. */
  examples: Record<string, string>;
}

function judgeAll(rays: RayImpl, pairs: SatImpl, only?: (g: Group) => boolean): Verdicts {
  const v: Verdicts = { mismatch: 0, ambiguous: 0, ambiguousInExact: 0, mismatchByReason: {}, ambiguousByReason: {}, failed: [], examples: {} };
  for (const g of groups.filter((x) => !only || only(x))) {
    const result = resultFile(g.json, rays, pairs);
    const cmp = judgeScene(g.scene, result, { reference: g.reference!, maxCases: 2 });
    v.mismatch += cmp.mismatch;
    v.ambiguous += cmp.ambiguous;
    if (g.suite.exact) {
      v.ambiguousInExact += cmp.ambiguous;
    }
    if (cmp.mismatch > 0) {
      v.failed.push(g.suite.name);
    }
    for (const c of cmp.comparisons) {
      for (const [k, n] of Object.entries(c.mismatchByReason)) {
        v.mismatchByReason[k] = (v.mismatchByReason[k] ?? 0) + n;
      }
      for (const [k, n] of Object.entries(c.ambiguousByReason)) {
        v.ambiguousByReason[k] = (v.ambiguousByReason[k] ?? 0) + n;
      }
      for (const x of c.cases) {
        if (x.verdict === 'mismatch') {
          v.examples[x.reason] ??= `${g.suite.name}: ${x.detail}`;
        }
      }
    }
  }
  return v;
}

const say = (v: Verdicts): string => JSON.stringify({ mismatch: v.mismatchByReason, ambiguous: v.ambiguousByReason, failed: v.failed, examples: v.examples });

describe(`valid implementations are never flagged (cases seed ${SEED})`, () => {
  it('the suites include exact groups, non-unit directions and a dense all-pairs group', () => {
    expect(groups.filter((g) => g.suite.exact).length).toBeGreaterThanOrEqual(8);
    expect(groups.some((g) => g.json.rays?.some((r) => Math.abs(Math.hypot(...r.direction) - 1) > 0.01))).toBe(true);
    const dense = groups.find((g) => g.suite.name === 'random/all-pairs-dense')!;
    expect(dense.reference!.allPairs!.length / 2).toBeGreaterThanOrEqual(1000);
  });

  const valid: [string, RayImpl, SatImpl][] = [
    ['the correct implementation', {}, {}],
    ['a parallel threshold of exactly zero', { parallel: 0 }, {}],
    ['a parallel threshold of 1e-7', { parallel: 1e-7 }, {}],
    ['slab planes in world space', { worldPlanes: true }, {}],
    ['no skipping of near-parallel edge axes (only exact zeros)', {}, { edgeSkip: 0 }],
    ['the last of equal gaps', {}, { lastTie: true }],
  ];
  for (const [name, rays, pairs] of valid) {
    it(`${name}: no mismatch in any group, no ambiguity in the exact groups`, () => {
      const v = judgeAll(rays, pairs);
      expect(v.mismatch, say(v)).toBe(0);
      expect(v.ambiguousInExact, say(v)).toBe(0);
    }, 120_000);
  }
});

describe('every planted bug is caught, with the reason that names it', () => {
  const exactRays = (g: Group): boolean => g.json.rays !== undefined;
  const withPairs = (g: Group): boolean => g.json.pairs !== undefined || g.json.allPairs === true;
  const mutants: [string, RayImpl, SatImpl, (g: Group) => boolean, string[]][] = [
    ['a slab test without a parallel branch (NaN in a face plane)', { parallel: 'none' }, {}, exactRays, ['missing-hit']],
    ['ties broken to the larger index', { tieToLarger: true }, {}, exactRays, ['tie-rule']],
    ['a flat box always reporting its −axis face', { flatFaceNegative: true }, {}, exactRays, ['face']],
    ['unnormalised directions', { unnormalised: true }, {}, exactRays, ['t-error']],
    ['the face id off by one', { faceOffByOne: true }, {}, exactRays, ['face']],
    ['t in the unit-box frame', { boxFrameT: true }, {}, exactRays, ['t-error']],
    ['a six-axis SAT', {}, { sixAxis: true }, withPairs, ['overlap', 'extra-pair']],
    ['a reversed edge-cross sign', {}, { reversedEdgeSign: true }, withPairs, ['overlap']],
    ['one overlapping pair in 1,000 dropped', {}, { dropEvery: 1000 }, withPairs, ['missing-pair']],
  ];
  for (const [name, rays, pairs, only, reasons] of mutants) {
    it(`${name}: ${reasons.join(', ')}`, () => {
      const v = judgeAll(rays, pairs, only);
      expect(v.mismatch, say(v)).toBeGreaterThan(0);
      for (const r of reasons) {
        expect(v.mismatchByReason[r] ?? 0, say(v)).toBeGreaterThan(0);
      }
    }, 120_000);
  }

  it('the NaN slab test is caught on the integer scene alone: 5 of 6 hits missed, none excused', () => {
    // Box ±1, rays along x at every (y, z) in {0, 1}² plus (1, 0.5), (0.5, 1): float32 computes it all exactly.
    const json: SceneJson = {
      boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }],
      rays: [[0, 0], [1, 0], [0, 1], [1, 1], [1, 0.5], [0.5, 1]].map(([y, z]) => ({ origin: [-10, y!, z!], direction: [1, 0, 0], maxDistance: null })),
    };
    const scene = parseSceneText(JSON.stringify(json));
    const result = { rays: castRays(json, { parallel: 'none' }) };
    expect(result.rays.filter((r) => (r as { hit: boolean }).hit)).toHaveLength(1);
    const v = judgeScene(scene, result);
    expect([v.mismatch, v.ambiguous]).toEqual([5, 0]);
    expect(v.comparisons[0]!.mismatchByReason).toEqual({ 'missing-hit': 5 });
  });
});

describe('NaN never agrees', () => {
  const json: SceneJson = {
    boxes: [
      { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] },
      { center: [3, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] },
    ],
    rays: [{ origin: [-5, 0.5, 0.5], direction: [1, 0, 0], maxDistance: null }],
    pairs: [[0, 1]],
  };
  const scene = parseSceneText(JSON.stringify(json));
  const good = resultFile(json);

  it('in a result file: t and gap written as null (JSON.stringify of NaN), "NaN" or "Infinity"', () => {
    for (const bad of [null, 'NaN', 'Infinity', '-Infinity']) {
      const r = structuredClone(good) as { rays: Record<string, unknown>[]; pairs: Record<string, unknown>[] };
      r.rays[0]!['t'] = bad;
      r.pairs[0]!['gap'] = bad;
      const v = judgeScene(scene, r);
      expect(v.mismatch).toBe(2);
      expect(v.comparisons.map((c) => Object.keys(c.mismatchByReason))).toEqual([['not-finite'], ['not-finite']]);
    }
    const neg = structuredClone(good) as { rays: Record<string, unknown>[] };
    neg.rays[0]!['t'] = -4;
    expect(judgeScene(scene, neg).comparisons[0]!.mismatchByReason).toEqual({ 'negative-t': 1 });
  });

  it('in typed arrays handed to compareAnswers: 5,000 NaN t are 5,000 mismatches', () => {
    const many: SceneJson = { boxes: json.boxes, rays: Array.from({ length: 5000 }, (_, k) => ({ origin: [-5, (k % 100) / 200, 0.25], direction: [1, 0, 0], maxDistance: null })) };
    const s = parseSceneText(JSON.stringify(many));
    const parsed = parseResult(resultFile(many), s);
    const hits = { ...parsed.hits!, t: new Float64Array(5000).fill(NaN) };
    const v = compareAnswers(s, { hits });
    expect([v.mismatch, v.comparisons[0]!.mismatchByReason['not-finite']]).toEqual([5000, 5000]);
    const gaps = compareAnswers(scene, { pairs: { ...parseResult(good, scene).pairs!, gap: new Float32Array([NaN]) } });
    expect(gaps.comparisons[0]!.mismatchByReason).toEqual({ 'not-finite': 1 });
  });
});

describe('partial results are judged on what they report', () => {
  const g = (): Group => groups.find((x) => x.suite.name === 'exact/rays-face-planes')!;
  it('hit and box only, hit only, a decision-only SAT: judged, and the report says what was left out', () => {
    const group = g();
    const full = resultFile(group.json) as { rays: Record<string, unknown>[] };
    const boxOnly = { rays: full.rays.map((r) => (r['hit'] ? { hit: true, box: r['box'] } : { hit: false })) };
    const v1 = judgeScene(group.scene, boxOnly, { reference: group.reference! });
    expect(v1.mismatch).toBe(0);
    expect(v1.comparisons[0]!.note).toMatch(/it has no t, normal, inside/);
    const hitOnly = { rays: full.rays.map((r) => ({ hit: r['hit'] })) };
    const v2 = judgeScene(group.scene, hitOnly, { reference: group.reference! });
    expect([v2.mismatch, v2.comparisons[0]!.family]).toEqual([0, 'anyHit']);
    // The NaN slab test is caught through the hit flags alone.
    const nanFlags = { rays: castRays(group.json, { parallel: 'none' }).map((r) => ({ hit: (r as { hit: boolean }).hit })) };
    expect(judgeScene(group.scene, nanFlags, { reference: group.reference! }).comparisons[0]!.mismatchByReason['any-flag']).toBeGreaterThan(0);
    const pairsGroup = groups.find((x) => x.suite.name === 'pairs/face-axes-only')!;
    const decisions = { pairs: (resultFile(pairsGroup.json, {}, { sixAxis: true }) as { pairs: { overlap: boolean }[] }).pairs.map((p) => ({ overlap: p.overlap })), allPairs: [] };
    const v3 = judgeScene(pairsGroup.scene, decisions, { reference: pairsGroup.reference! });
    expect(v3.comparisons[0]!.mismatchByReason).toEqual({ overlap: 2 });
    expect(v3.comparisons[0]!.note).toMatch(/it has no gap, axis/);
  });

  it('fields must be reported alike by every entry', () => {
    const group = g();
    const full = resultFile(group.json) as { rays: Record<string, unknown>[] };
    const first = full.rays.findIndex((r) => r['hit']);
    const mixed = { rays: full.rays.map((r, k) => (k === first || !r['hit'] ? r : { hit: true, box: r['box'] })) };
    expect(() => judgeScene(group.scene, mixed)).toThrow(/every hit reports the same fields/);
  });
});

describe('the command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'obb-mutants-'));
    for (const x of files) {
      writeFileSync(join(dir, x.name), x.text);
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (sub: string, rays: RayImpl, pairs: SatImpl): string => {
    const out = join(dir, sub);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out);
    const suites = manifest.suites.filter((s) => s.name.startsWith('exact/'));
    writeFileSync(join(dir, `${sub}.manifest.json`), JSON.stringify({ ...manifest, suites }));
    for (const s of suites) {
      const grp = groups.find((x) => x.suite.name === s.name)!;
      writeFileSync(join(out, s.result), JSON.stringify(resultFile(grp.json, rays, pairs)));
    }
    return out;
  };

  it('a result names its scene: run writes the SHA-256 of the scene file, judge refuses a result for another scene (exit 2)', async () => {
    const scene = join(dir, 'exact--rays-face-planes.scene.json');
    const other = join(dir, 'exact--rays-flat-boxes.scene.json');
    const out = join(dir, 'own.result.json');
    const run = await runCli('run', scene, '--backend', 'cpu', '--out', out, '--quiet');
    expect(run.code, run.err).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { scene: string };
    expect(written.scene).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await runCli('judge', scene, out, '--quiet')).code).toBe(0);
    // The same answers claimed for another scene of the same shape (rays answered against a scene
    // with other rays): refused before any judging, named in one line.
    const foreign = join(dir, 'foreign.result.json');
    writeFileSync(foreign, JSON.stringify({ ...resultFile(groups.find((g) => g.suite.name === 'exact/rays-flat-boxes')!.json), scene: written.scene }));
    const refused = await runCli('judge', other, foreign, '--quiet');
    expect(refused.code).toBe(2);
    expect(refused.err.trim().split('\n')).toHaveLength(1);
    expect(refused.err).toMatch(/result is for another scene/);
  });

  it('judge MANIFEST DIR: exit 0 for the correct implementation, 1 for the NaN slab test, naming missing-hit', async () => {
    const ok = write('correct', {}, {});
    const good = await runCli('judge', join(dir, 'correct.manifest.json'), ok, '--quiet');
    expect(good.code, good.out + good.err).toBe(0);
    const bad = write('nan', { parallel: 'none' }, {});
    const caught = await runCli('judge', join(dir, 'nan.manifest.json'), bad, '--quiet');
    expect(caught.code, caught.out + caught.err).toBe(1);
    expect(caught.out).toMatch(/missing-hit/);
  }, 120_000);
});
