/**
 * Box–box workloads: listed pairs per second (the published SAT distribution), and all-pairs
 * overlap among moving boxes, one frame at a time. Answers are checked against the reference.
 */
import type { BoxArray } from '../../../src/index.ts';
import { checkPairList, checkPairs, referencePairsCulled } from '../check.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { selectImplementations, type Implementation } from '../impls/index.ts';
import type { MovingScene, PairRunner } from '../impls/types.ts';
import { makeRow, timeInterleaved, timeRoundsInterleaved } from '../measure.ts';
import { movingBoxes, satPairScene } from '../scenes.ts';

const fmt = (x: number): string => x.toLocaleString('en-US');

type PairOutput = Awaited<ReturnType<PairRunner['run']>>;

/** `pairs` listed box pairs (published distribution), overlap decision per pair. Workload `box-pairs`. */
export async function boxPairs(pairs: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const { boxes, list } = satPairScene(pairs);
  const runners: { impl: Implementation; runner: PairRunner; result?: PairOutput }[] = [];
  try {
    for (const impl of selectImplementations(cfg.implementations)) {
      if (impl.pairs) {
        runners.push({ impl, runner: await impl.pairs(boxes, list) });
      }
    }
    const timed = await timeInterleaved(runners.map((r) => async () => {
      r.result = await r.runner.run();
    }), cfg.budget);
    for (const [k, { impl, runner, result }] of runners.entries()) {
      const check = checkPairs(boxes, list, result!, runner.origin, `box-pairs ${impl.name}`);
      if (check.details) {
        out.notes.push(check.details);
      }
      out.rows.push(makeRow({
        workload: 'box-pairs', implementation: impl.name, n: pairs, queries: pairs, stats: timed[k]!, work: pairs,
        unit: 'pairs/s', agrees: check.agrees, timing: impl.device === 'gpu' ? 'end-to-end' : 'cpu', check: check.summary,
        note: pairNote(impl.name),
      }));
    }
  } finally {
    for (const r of runners) {
      r.runner.destroy();
    }
  }
  return out;
}

function pairNote(name: string): string {
  switch (name) {
    case 'gpu-brute': return 'obbPairs: pair list upload, 15-axis SAT, readback of overlap, gap and axis';
    case 'rapier':
    case 'rapier-simd': return 'Cuboid.intersectsShape per pair (each call marshals both shapes into WASM)';
    case 'three': return 'OBB.intersectsOBB (three/addons/math/OBB.js)';
    default: return '';
  }
}

/**
 * All-pairs overlap among `n` moving boxes: each timed run moves every box to the next frame and
 * returns every overlapping pair (i < j, sorted). Workload `all-pairs-moving`. Brute-force CPU
 * implementations run only up to the mode's limit on n(n − 1)/2. Implementations take turns frame
 * by frame; each is checked on the first measured frame, which all of them saw.
 */
export async function allPairsMoving(n: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const scene = movingBoxes(n);
  const candidates = (n * (n - 1)) / 2;
  const scenes: { impl: Implementation; moving: MovingScene }[] = [];
  try {
    for (const impl of selectImplementations(cfg.implementations)) {
      if (!impl.moving) {
        continue;
      }
      if (impl.device === 'cpu' && impl.bruteForce && candidates > cfg.cpuPairsLimit) {
        out.notes.push(`all-pairs-moving n=${fmt(n)}: ${impl.name} skipped (brute force, ${fmt(candidates)} pairs per frame; ` +
          `this mode runs it up to ${fmt(cfg.cpuPairsLimit)})`);
        continue;
      }
      scenes.push({ impl, moving: await impl.moving(scene.frame(0)) });
    }
    // Round r moves every box to frame r + 1; all implementations see the same frames.
    const r = await timeRoundsInterleaved((round) => scene.frame(round + 1), scenes.map((x) => (b: BoxArray) => x.moving.frame(b)), cfg.budget);
    const frameBoxes = r.firstMeasured;
    const ref = referencePairsCulled(frameBoxes);
    for (const [k, { impl, moving }] of scenes.entries()) {
      const check = checkPairList(frameBoxes, r.results[k]!, ref, moving.origin, `all-pairs-moving n=${fmt(n)} ${impl.name}`);
      if (check.details) {
        out.notes.push(check.details);
      }
      out.rows.push(makeRow({
        workload: 'all-pairs-moving', implementation: impl.name, n, queries: candidates, stats: r.stats[k]!, work: 1,
        unit: 'frames/s', agrees: check.agrees, timing: impl.device === 'gpu' ? 'end-to-end' : 'cpu', check: check.summary,
        note: `${fmt(ref.length / 2)} overlapping pairs in the checked frame; ${movingNote(impl.name)}`,
      }));
    }
  } finally {
    for (const x of scenes) {
      x.moving.destroy();
    }
  }
  return out;
}

function movingNote(name: string): string {
  switch (name) {
    case 'gpu-brute': return 'BoxSet.set (upload) + allPairs (every pair tested, list read back and sorted)';
    case 'reference': return 'allPairs, float64, every pair tested';
    case 'rapier':
    case 'rapier-simd': return 'setTranslation/setRotation per kinematic body, world.step(), intersectionPairsWith per sensor collider';
    case 'three': return 'OBB update per box + intersectsOBB on every pair';
    default: return '';
  }
}
