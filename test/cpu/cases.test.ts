/**
 * The exported suites' wider and exact groups (src/judge/cases.ts, src/scenes/):
 * - every new group is a valid scene file, deterministic for a seed, counted by its manifest;
 * - every input of every `exact/` group is exactly representable in float16 (so in float32 and
 *   float64), axes only 0 and ±1, directions along an axis; the manifest flags them `exact`;
 * - the reference's answers to them are exact too (every t and gap a float16 value), ties go to
 *   the smallest of at least two tied boxes, touching faces give gap 0 and overlap;
 * - the reference's own result files judge clean (no mismatch, no ambiguous case);
 * - the dense all-pairs group has thousands of overlapping pairs in the quick size;
 * - the groups that were there before keep their names, order, counts and data.
 * The older groups' own checks are in test/cpu/judge.test.ts ("the exported suites").
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultOrigin } from '../../src/core/inputs.ts';
import { parseSceneText } from '../../src/files/scene.ts';
import { sceneResultFromCpu } from '../../src/files/results.ts';
import { caseFiles, judgeScene, runReference, type CaseSuite } from '../../src/judge/index.ts';
import { allPairsSweep } from '../../src/reference/accel.ts';
import { allHits } from '../../src/reference/raycast.ts';
import { exactPairGroups, exactRayGroups, quarterTurns } from '../../src/scenes/adversarial.ts';
import { mulberry32, wideBoxes, widePairs, wideRays } from '../../src/scenes/generate.ts';

/** True when x is exactly a float16 value (finite, |x| ≤ 65504, on the float16 grid, subnormals included). */
function isFloat16(x: number): boolean {
  if (!Number.isFinite(x)) {
    return false;
  }
  const a = Math.abs(x);
  if (a === 0) {
    return true;
  }
  if (a > 65504) {
    return false;
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) {
    e--;
  } else if (2 ** (e + 1) <= a) {
    e++;
  }
  // 11 significant bits; below 2⁻¹⁴ the step stays 2⁻²⁴ (subnormals).
  return Number.isInteger(a / 2 ** (Math.max(e, -14) - 10));
}

const SEED = 5;
const quick = caseFiles({ seed: SEED });
const textOf = (s: CaseSuite): string => quick.files.find((f) => f.name === s.scene)!.text;
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const WIDE = ['random/rays-wide', 'random/rays-far-1e6', 'random/pairs-wide', 'random/pairs-far-1e6', 'random/pairs-segments', 'random/all-pairs-dense'];
const EXACT = [
  'exact/rays-face-planes', 'exact/rays-origin-on-slab-planes', 'exact/rays-ties-inside', 'exact/rays-ties-ahead', 'exact/rays-flat-boxes',
  'exact/rays-segments', 'exact/rays-max-distance', 'exact/rays-quarter-turns', 'exact/pairs-touching', 'exact/all-pairs-touching',
  'exact/pairs-containment', 'exact/pairs-identical', 'exact/pairs-quarter-turns', 'exact/pairs-flat-and-segments',
];
const NEW = [...WIDE, ...EXACT];
const newSuites = quick.manifest.suites.filter((s) => NEW.includes(s.name));

/** The groups as they were before the wide and exact ones (issue 31): name and counts, in order. */
const OLD: readonly (readonly [string, number, number | undefined, number | undefined, boolean])[] = [
  ['random/rays', 500, 5000, undefined, false], ['random/pairs', 10000, undefined, 5000, false], ['random/all-pairs', 800, undefined, undefined, true],
  ['rays/grazing-edges', 16, 3200, undefined, false], ['rays/grazing-corners', 16, 3200, undefined, false], ['rays/face-plane', 16, 1920, undefined, false],
  ['rays/origin-inside-solid', 48, 1440, undefined, false], ['rays/origin-on-surface', 48, 1440, undefined, false], ['rays/flat-boxes', 48, 2000, undefined, false],
  ['rays/flat-boxes-grazing', 48, 2400, undefined, false], ['rays/axis-aligned-parallel', 48, 1500, undefined, false],
  ['rays/far-from-origin-1e4', 48, 2000, undefined, false], ['rays/max-distance', 48, 1000, undefined, false],
  ['pairs/near-parallel-edges', 3000, undefined, 1500, false], ['pairs/touching-faces', 3000, undefined, 1500, false], ['pairs/containment', 2000, undefined, 1000, false],
  ['pairs/flat-boxes', 2000, undefined, 1000, false], ['pairs/identical-orientation', 1000, undefined, 500, false],
  ['pairs/far-from-origin-1e4', 2000, undefined, 1000, false], ['pairs/axis-aligned', 2000, undefined, 1000, false],
  ['all-pairs/touching-faces', 600, undefined, undefined, true], ['lidar/street', 300, undefined, undefined, false], ['lidar/motion', 300, undefined, undefined, false],
  ['lidar/edges', 13, undefined, undefined, false], ['pairs/face-axes-only', 2, undefined, 2, true],
];

/**
 * sha256 of the older groups' inputs (boxes, rays, pairs, allPairs, lidars of each scene file,
 * seed 5, quick), as written before the wide and exact groups were added. The library's own GPU
 * tests run the same adversarial groups: a change here must be deliberate.
 */
const OLD_DIGEST = 'eeacfd00f853a21404d63d448382d761ee30785df6df1659c8f56f1c463ba0a7';

function oldDigest(): string {
  const h = createHash('sha256');
  for (const s of quick.manifest.suites.slice(0, OLD.length)) {
    const scene = JSON.parse(textOf(s)) as Record<string, unknown>;
    h.update(`${s.name}\n${JSON.stringify([scene['boxes'], scene['rays'], scene['pairs'], scene['allPairs'], scene['lidars']])}\n`);
  }
  return h.digest('hex');
}

describe('the wider and exact groups of cases', () => {
  it('are exported after the older groups, each a valid scene file counted by the manifest, deterministic for a seed', () => {
    expect(quick.manifest.suites.map((s) => s.name)).toEqual([...OLD.map((o) => o[0]), ...NEW]);
    const again = caseFiles({ seed: SEED });
    expect(again.files.map((f) => f.text)).toEqual(quick.files.map((f) => f.text));
    const other = caseFiles({ seed: SEED + 1, suites: ['random/rays-wide', 'exact/rays-face-planes'] });
    // The random groups follow the seed; the exact ones are the same for every seed.
    expect(other.files[1]!.text).not.toBe(textOf(quick.manifest.suites.find((s) => s.name === 'random/rays-wide')!));
    expect(other.files[2]!.text).toBe(textOf(quick.manifest.suites.find((s) => s.name === 'exact/rays-face-planes')!));
    for (const s of newSuites) {
      const parsed = parseSceneText(textOf(s));
      expect(parsed.unknownFields, s.name).toEqual([]);
      expect(parsed.boxes.count, s.name).toBe(s.boxes);
      expect(parsed.rays?.count, s.name).toBe(s.rays);
      expect(parsed.pairs ? parsed.pairs.length / 2 : undefined, s.name).toBe(s.pairs);
      expect(parsed.allPairs, s.name).toBe(s.allPairs === true);
      expect(s.tests.length, s.name).toBeGreaterThan(30);
      expect(s.boxes + (s.rays ?? 0) + (s.pairs ?? 0), s.name).toBeGreaterThan(0);
      if (s.name.startsWith('exact/')) {
        // Tens to a few hundred cases each.
        expect((s.rays ?? 0) + (s.pairs ?? 0) + (s.allPairs ? (s.boxes * (s.boxes - 1)) / 2 : 0), s.name).toBeGreaterThanOrEqual(100);
        expect((s.rays ?? 0) + (s.pairs ?? 0), s.name).toBeLessThanOrEqual(500);
      }
    }
    // The exact flag is on the exact groups only.
    expect(quick.manifest.suites.filter((s) => s.exact).map((s) => s.name)).toEqual(EXACT);
    // The quick size stays a few MB more than before (the older groups were 12.9 MB).
    const added = newSuites.reduce((n, s) => n + textOf(s).length, 0);
    console.log(`cases quick: ${newSuites.length} new groups, ${(added / 1e6).toFixed(2)} MB of ${(quick.files.reduce((n, f) => n + f.text.length, 0) / 1e6).toFixed(2)} MB`);
    expect(added).toBeLessThan(4e6);
  });

  it('every input of every exact group is a float16 value; axes are 0 and ±1; directions lie along an axis', () => {
    expect([65504, 2 ** -24, 1 + 2 ** -10, 0.75, -3.25, 0, 2048, 4094].every(isFloat16)).toBe(true);
    expect([65505, 2 ** -25, 1 + 2 ** -11, 1 / 3, 0.1, 2049, 1e-9, Infinity, NaN].some(isFloat16)).toBe(false);
    for (const s of quick.manifest.suites.filter((x) => x.exact)) {
      const scene = JSON.parse(textOf(s)) as {
        boxes: { center: number[]; halfExtents: number[]; axes: number[][] }[];
        rays?: { origin: number[]; direction: number[]; maxDistance: number | null }[];
      };
      for (const [b, box] of scene.boxes.entries()) {
        expect(Object.keys(box).sort(), `${s.name} boxes[${b}]`).toEqual(['axes', 'center', 'halfExtents']);
        expect([...box.center, ...box.halfExtents].every(isFloat16), `${s.name} boxes[${b}]`).toBe(true);
        expect(box.axes.flat().every((x) => x === 0 || x === 1 || x === -1), `${s.name} boxes[${b}].axes`).toBe(true);
      }
      for (const [r, ray] of (scene.rays ?? []).entries()) {
        const where = `${s.name} rays[${r}]`;
        expect([...ray.origin, ...ray.direction].every(isFloat16), where).toBe(true);
        expect(ray.maxDistance === null || isFloat16(ray.maxDistance), where).toBe(true);
        expect(ray.direction.filter((x) => x !== 0).length, where).toBe(1);
      }
    }
    // The quarter turns: 24 distinct right-handed rotations.
    const turns = quarterTurns();
    expect(new Set(turns.map((t) => JSON.stringify(t))).size).toBe(24);
    for (const [u, v, w] of turns) {
      expect([u[1] * v[2] - u[2] * v[1] + 0, u[2] * v[0] - u[0] * v[2] + 0, u[0] * v[1] - u[1] * v[0] + 0]).toEqual([...w]);
    }
    // The generators are pure: the same groups on every call.
    expect(JSON.stringify(exactRayGroups())).toBe(JSON.stringify(exactRayGroups()));
    expect(JSON.stringify(exactPairGroups())).toBe(JSON.stringify(exactPairGroups()));
  });

  it('the reference\'s answers to the exact groups are exact, ties go to the smallest index, touching faces overlap at gap 0', () => {
    for (const s of quick.manifest.suites.filter((x) => x.exact)) {
      const scene = parseSceneText(textOf(s));
      const ref = runReference(scene);
      if (ref.hits) {
        const hit = Array.from(ref.hits.box).filter((b) => b >= 0).length;
        // Every group has hits and misses, except the ties (all hit).
        expect(hit, s.name).toBeGreaterThan(0);
        expect(hit < ref.hits.count, s.name).toBe(!s.name.includes('ties'));
        for (let r = 0; r < ref.hits.count; r++) {
          if (ref.hits.box[r]! >= 0) {
            expect(isFloat16(ref.hits.t[r]!), `${s.name} ray ${r}: t ${ref.hits.t[r]}`).toBe(true);
          }
        }
      }
      if (ref.pairs) {
        for (let k = 0; k < ref.pairs.count; k++) {
          expect(isFloat16(ref.pairs.gap[k]!), `${s.name} pair ${k}: gap ${ref.pairs.gap[k]}`).toBe(true);
          expect(ref.pairs.overlap[k], `${s.name} pair ${k}`).toBe(ref.pairs.gap[k]! <= 0 ? 1 : 0);
        }
      }
      if (s.name.includes('ties')) {
        // Every ray ties between two or more boxes at its closest t; the reference picks the smallest index.
        const all = allHits(scene.boxes, scene.rays!);
        const tied = new Map<number, number[]>();
        for (let k = 0; k < all.count; k++) {
          const r = all.ray[k]!;
          if (all.t[k] === ref.hits!.t[r]) {
            tied.set(r, [...(tied.get(r) ?? []), all.box[k]!]);
          }
        }
        let ties = 0;
        for (let r = 0; r < scene.rays!.count; r++) {
          const boxes = tied.get(r) ?? [];
          ties += boxes.length >= 2 ? 1 : 0;
          expect(ref.hits!.box[r], `${s.name} ray ${r}`).toBe(Math.min(...boxes));
        }
        expect(ties, s.name).toBe(scene.rays!.count);
        if (s.name === 'exact/rays-ties-inside') {
          expect(Array.from(ref.hits!.t).every((t) => t === 0)).toBe(true);
        } else {
          expect(Array.from(ref.hits!.t).every((t) => t > 0)).toBe(true);
        }
      }
      if (s.name === 'exact/pairs-touching') {
        const gaps = new Set(Array.from(ref.pairs!.gap));
        expect([...gaps].sort((a, b) => a - b)).toEqual([-0.25, 0, 0.5]);
        const touching = Array.from(ref.pairs!.gap).filter((g) => g === 0).length;
        expect(touching).toBeGreaterThanOrEqual(50);
      }
      if (s.name === 'exact/all-pairs-touching') {
        // Neighbours with no gap between their cells: (12 × 11 × 8 − 120) / 2 (see exactTouchingLattice).
        expect(ref.allPairs!.length / 2).toBe(468);
      }
    }
  });

  it('the reference\'s own results judge clean, with no ambiguous case', () => {
    for (const s of newSuites) {
      const scene = parseSceneText(textOf(s));
      const v = judgeScene(scene, clone(sceneResultFromCpu(scene, runReference(scene))));
      expect(v.mismatch, s.name).toBe(0);
      expect(v.ambiguous, s.name).toBe(0);
      expect(v.total, s.name).toBeGreaterThan(0);
    }
  }, 60_000);

  it('the dense all-pairs group has thousands of overlapping pairs in the quick size', () => {
    const s = quick.manifest.suites.find((x) => x.name === 'random/all-pairs-dense')!;
    const scene = parseSceneText(textOf(s));
    const n = allPairsSweep(scene.boxes).length / 2;
    console.log(`random/all-pairs-dense: ${n} overlapping pairs among ${s.boxes} boxes (seed ${SEED})`);
    expect(n).toBeGreaterThanOrEqual(3000);
  });

  it('the wide generators: sizes over decades, directions of any length, segments, coordinates to 1e6', () => {
    const rnd = mulberry32(11);
    const boxes = wideBoxes(2000, rnd, { flat: 0.1, segments: 0.1 });
    const half = Array.from({ length: boxes.count * 3 }, (_, k) => boxes.data[Math.floor(k / 3) * 15 + 3 + (k % 3)]!);
    const positive = half.filter((h) => h > 0);
    expect(Math.min(...positive)).toBeGreaterThanOrEqual(1e-4);
    expect(Math.max(...positive)).toBeLessThanOrEqual(1e4);
    expect(Math.min(...positive)).toBeLessThan(1e-3);
    expect(Math.max(...positive)).toBeGreaterThan(1e3);
    const zeros = Array.from({ length: boxes.count }, (_, b) => half.slice(3 * b, 3 * b + 3).filter((h) => h === 0).length);
    expect(zeros.filter((z) => z === 2).length).toBeGreaterThan(100); // segments
    expect(zeros.filter((z) => z === 1).length).toBeGreaterThan(100); // flat boxes
    const rays = wideRays(2000, boxes, rnd);
    const lengths = rays.map((r) => Math.hypot(...r.direction));
    expect(Math.min(...lengths)).toBeLessThan(1e-2);
    expect(Math.max(...lengths)).toBeGreaterThan(1e2);
    expect(rays.filter((r) => r.maxDistance !== undefined).length).toBeGreaterThan(300);
    const far = widePairs(100, rnd, { halfMin: 0.1, halfMax: 3, offsets: [[6e5, -7e5, 3e5]] });
    expect(Math.hypot(far.data[0]!, far.data[1]!, far.data[2]!)).toBeGreaterThan(9e5);
    for (const s of ['random/rays-wide', 'random/rays-far-1e6']) {
      const scene = JSON.parse(textOf(quick.manifest.suites.find((x) => x.name === s)!)) as { rays: { direction: number[] }[] };
      expect(scene.rays.filter((r) => Math.abs(Math.hypot(...r.direction) - 1) > 1e-6).length, s).toBeGreaterThan(scene.rays.length / 2);
    }
    // Twins mirrored through the offset: the bounds of the centres are centred on it, so a floating
    // origin at their centre (this library's default) lands on the offset, next to the small boxes.
    const near = { 'random/rays-wide': [0, 0, 0], 'random/pairs-wide': [0, 0, 0], 'random/pairs-segments': [0, 0, 0], 'random/rays-far-1e6': [6e5, -7e5, 3e5], 'random/pairs-far-1e6': [6e5, -7e5, 3e5] };
    for (const [name, offset] of Object.entries(near)) {
      const origin = defaultOrigin(parseSceneText(textOf(quick.manifest.suites.find((x) => x.name === name)!)).boxes);
      expect(origin.map((x, k) => Math.abs(x - offset[k]!)).every((d) => d <= 1e-9 * Math.max(1, Math.abs(offset[0]!))), `${name}: ${origin.join(', ')}`).toBe(true);
    }
  });

  it('the older groups keep their names, order, counts and inputs', () => {
    const old = quick.manifest.suites.slice(0, OLD.length);
    expect(old.map((s) => [s.name, s.boxes, s.rays, s.pairs, s.allPairs === true])).toEqual(OLD.map((o) => [...o]));
    expect(old.some((s) => s.exact)).toBe(false);
    expect(oldDigest()).toBe(OLD_DIGEST);
    expect(quick.manifest.notExported.map((x) => x.name)).toEqual(['rays/origin-inside-exit', 'rays/origin-on-surface-exit', 'rays/masks-and-exclude']);
  });
});
