/**
 * The reference at scale: `runReference` (what `verify`, `judge` and `run --backend cpu` compute)
 * goes through the exact broad phases and still gives the brute-force answers; long phases report
 * counts and an ETA at most once a second and nothing when short; what the CPU cannot hold is
 * refused before it is allocated, naming the input.
 */
import { describe, expect, it } from 'vitest';
import { checkReferenceCapacity, phaseProgress, runReference } from '../../src/judge/judge.ts';
import { closestHit } from '../../src/reference/raycast.ts';
import { allPairs } from '../../src/reference/pairs.ts';
import { parseScene } from '../../src/files/scene.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/scenes/generate.ts';
import { BOX_F64, RAY_F64, type BoxArray } from '../../src/core/types.ts';
import { CapacityError } from '../../src/errors.ts';

/** A scene file's JSON for boxes and rays made by the generators. */
function sceneJson(boxes: BoxArray, rays: { count: number; data: Float64Array }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    boxes: Array.from({ length: boxes.count }, (_, i) => {
      const o = i * BOX_F64.STRIDE;
      const d = Array.from(boxes.data.subarray(o, o + BOX_F64.STRIDE));
      return { center: d.slice(0, 3), halfExtents: d.slice(3, 6), axes: [d.slice(6, 9), d.slice(9, 12), d.slice(12, 15)] };
    }),
    rays: Array.from({ length: rays.count }, (_, r) => {
      const o = r * RAY_F64.STRIDE;
      const max = rays.data[o + RAY_F64.MAX]!;
      return { origin: Array.from(rays.data.subarray(o, o + 3)), direction: Array.from(rays.data.subarray(o + 3, o + 6)), maxDistance: Number.isFinite(max) ? max : null };
    }),
    ...extra,
  };
}

describe('runReference through the broad phases', () => {
  it('gives the brute-force answers: closest hits, all pairs (seed 81)', () => {
    const rnd = mulberry32(81);
    const boxes = randomBoxes(1500, rnd, { extent: 14, halfMin: 0.1, halfMax: 1.2 });
    const rays = randomRays(1500, boxes, rnd, { extent: 18 });
    const scene = parseScene(sceneJson(boxes, rays, { allPairs: true }));
    const ref = runReference(scene);
    const brute = closestHit(scene.boxes, scene.rays!);
    expect(Array.from(ref.hits!.box)).toEqual(Array.from(brute.box));
    expect(Array.from(ref.hits!.t)).toEqual(Array.from(brute.t));
    expect(Array.from(ref.hits!.face)).toEqual(Array.from(brute.face));
    expect(Array.from(ref.allPairs!)).toEqual(Array.from(allPairs(scene.boxes)));
    expect(ref.allPairs!.length / 2).toBeGreaterThan(1000);
  }, 60_000);

  it('says what each phase is, and nothing more when it is short', () => {
    const rnd = mulberry32(82);
    const boxes = randomBoxes(300, rnd);
    const lines: string[] = [];
    runReference(parseScene(sceneJson(boxes, randomRays(300, boxes, rnd), { allPairs: true })), (m) => lines.push(m));
    expect(lines).toEqual(['closest hit (cpu): 300 rays × 300 boxes…', 'all pairs (cpu): 300 boxes, grid broad phase…']);
  });
});

describe('phaseProgress', () => {
  it('is silent for two seconds, then prints counts and an ETA (from the rate since its first call) at most once a second', () => {
    let clock = 0;
    const lines: [string, boolean | undefined][] = [];
    const tick = phaseProgress((m, periodic) => lines.push([m, periodic]), 'all pairs (cpu)', 'boxes swept', 'overlapping', () => clock)!;
    const at = (ms: number, done: number, found: number): void => {
      clock = ms;
      tick(done, 1_000_000, found);
    };
    at(1500, 0, 0); // after the phase's setup
    at(1999, 50_000, 150);
    at(2000, 100_000, 300);
    at(2500, 120_000, 360);
    at(3100, 150_000, 450);
    at(60_000, 1_000_000, 3000);
    expect(lines).toEqual([
      ['all pairs (cpu): 100,000 / 1,000,000 boxes swept, 300 overlapping, ETA 5 s', true],
      ['all pairs (cpu): 150,000 / 1,000,000 boxes swept, 450 overlapping, ETA 9 s', true],
    ]);
  });

  it('writes minutes past 90 s, leaves out what was not counted, and is nothing when quiet', () => {
    let clock = 0;
    const lines: string[] = [];
    const tick = phaseProgress((m) => lines.push(m), 'LiDAR sweep 0 (cpu)', 'rays', undefined, () => clock)!;
    tick(0, 500_000, 0);
    clock = 4000;
    tick(10_000, 500_000, 7);
    expect(lines).toEqual(['LiDAR sweep 0 (cpu): 10,000 / 500,000 rays, ETA 3 min 16 s']);
    expect(phaseProgress(undefined, 'x', 'y')).toBeUndefined();
  });
});

describe('what the CPU reference cannot hold', () => {
  const box = { center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] };
  const sweep = (elevationsDeg: number[], columns: number): unknown => ({ sensor: { elevationsDeg, columns, maxRange: 50 }, pose: { position: [0, 0, 3] } });

  it('is refused before anything is allocated, naming the sweep and its size', () => {
    const scene = parseScene({ boxes: [box], lidars: [sweep([0], 16), sweep([-10, 0, 10, 20], 5_000_000)] });
    const error = (() => {
      try {
        runReference(scene);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CapacityError);
    expect((error as Error).message).toBe('lidars[1].sensor.columns: 4 channels × 5000000 columns = 20000000 rays per sweep is more than the CPU reference holds (16777216 = 2^24)');
    expect(() => checkReferenceCapacity(parseScene({ boxes: [box], lidars: [sweep([0], 5_000_000)] })))
      .toThrow('lidars[0].sensor.columns: 1 channel × 5000000 columns = 5000000 rays per sweep: more columns than the CPU reference holds (4194304 = 2^22)');
    expect(() => checkReferenceCapacity(parseScene({ boxes: [box], lidars: [sweep([0, 1], 2048)] }))).not.toThrow();
  });
});
