/**
 * Simulator-grade LiDAR workloads (issue #16), on the LiDAR scene (bench/page/scenes.ts): the
 * plain table of the benchmark sensor (`lidar-static`, the static sweep the others are measured
 * against; `lidar-static-fields`: the same with `fields: true`), the VLP-32C preset (`lidar-vlp32c`: per-laser offsets and a clockwise turn, by the raster method;
 * `lidar-vlp32c-plain`: the same preset with `{ perLaser: false }`), a
 * sensor with the beam-origin circle and per-channel azimuth offsets (`lidar-offsets`), the same
 * sensor moving at 20 m/s and turning during its 0.1 s sweep (`lidar-moving-sensor`), 1,000 of
 * the boxes moving during the sweep (`lidar-moving-boxes`), and five sensors in one submission
 * against five sweeps one after the other (`lidar-many`). With motion, the tree method's row
 * (`gpu-bvh`) runs next to the raster method's. The GPU rows sweep on the GPU (rays
 * made there from host tables); Rapier (`rapier`, and its SIMD build `rapier-simd`) casts the same
 * rays (made by the reference's lidarRays) and, for moving boxes, moves its kinematic bodies and
 * steps before each column; the reference runs on a slice of the columns. Every GPU sweep is
 * judged against the reference on every 16th column (compareLidarSweep).
 */
import { linearElevations, type BoxArray, type BoxMotion, type LidarDescription, type LidarMotion, type LidarPose, type LidarSensor } from '../../../src/index.ts';
import { compareLidarSweep, mulberry32 } from '../../../src/judge/index.ts';
import { lidarPreset } from '../../../src/lidar/index.ts';
import { lidarRays, lidarSweepReference } from '../../../src/reference/index.ts';
import { columnAngle, columnTime } from '../../../src/core/lidar.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { sharedGpu } from '../gpu.ts';
import { makeRow, timeBudget, timeInterleaved, type Stats } from '../measure.ts';
import { LIDAR, lidarScene } from '../scenes.ts';
import { rapier, rapierSimd } from '../impls/rapier.ts';
import type { BenchHits, RayScene, TimedRayScene } from '../impls/types.ts';

const deg = Math.PI / 180;

/**
 * The sensor: channels evenly from −25° to +15° (the benchmark's table), the beam origin 15.8 mm
 * from the axis and per-channel azimuth offsets of ±3.1° and ±1.0° in a repeating four — the
 * magnitudes of the Ouster OS1-64 sample unit's table (ouster-sdk tests/metadata/
 * 2_0_0_os1-991913000010-64.json: lidar_origin_to_beam_origin_mm 15.806, beam_azimuth_angles
 * about 3.1° and 1.0°) — clockwise as that sensor sweeps, 10 Hz.
 */
function sensor(elevations: number, azimuths: number): LidarDescription {
  return {
    elevations: linearElevations(elevations, LIDAR.minElevationDeg, LIDAR.maxElevationDeg),
    azimuthOffsets: Array.from({ length: elevations }, (_, c) => [3.1, 1.0, -1.0, -3.1][c % 4]! * deg),
    beamOriginOffset: 0.015806,
    azimuthSteps: azimuths, azimuthStart: 2 * Math.PI, azimuthEnd: 0,
    maxRange: LIDAR.maxDistance, sweepTime: 0.1,
  };
}

const POSE: LidarPose = { origin: [0, 0, 0] };
/** 20 m/s along x for 0.1 s, turning 0.3 rad/s (a car in a bend). */
const POSE_END: LidarPose = { origin: [2, 0, 0], rotation: [0, 0, Math.sin(0.015), Math.cos(0.015)] };

/** `count` of the boxes moving: up to 15 m/s horizontally, up to 1 rad/s about z. */
function movingBoxes(boxes: BoxArray, count: number): BoxMotion {
  const rnd = mulberry32(1601);
  const step = Math.max(1, Math.floor(boxes.count / count));
  const list = Array.from({ length: Math.min(count, boxes.count) }, (_, k) => k * step);
  return {
    boxes: list,
    velocity: list.flatMap(() => [(rnd() - 0.5) * 30, (rnd() - 0.5) * 30, 0]),
    angularVelocity: list.flatMap(() => [0, 0, (rnd() - 0.5) * 2]),
  };
}

function checkNote(cmp: ReturnType<typeof compareLidarSweep>): { checked: number; ambiguous: number; mismatch: number; reasons: string } {
  return {
    checked: cmp.total, ambiguous: cmp.ambiguous, mismatch: cmp.mismatch,
    reasons: Object.entries({ ...cmp.ambiguousByReason, ...cmp.mismatchByReason }).map(([k, v]) => `${k} ${v}`).join(', '),
  };
}

/** Rapier's boxes against another sweep's on the given rays. */
function rapierAgrees(hits: BenchHits, box: Int32Array, rays: readonly number[]): { agree: number; total: number } {
  let agree = 0;
  for (const r of rays) {
    agree += hits.box[r] === box[r] ? 1 : 0;
  }
  return { agree, total: rays.length };
}

/**
 * The three single-sensor workloads and the five-sensor submission, over `n` boxes with a
 * `elevations` × `azimuths` sensor and `moving` moving boxes.
 */
export async function lidarSim(n: number, elevations: number, azimuths: number, moving: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const want = (impl: string): boolean => !cfg.implementations || cfg.implementations.includes(impl);
  const g = await sharedGpu();
  const boxes = lidarScene(n);
  const set = g.createBoxSet(boxes);
  const desc = sensor(elevations, azimuths);
  const vlp32c = lidarPreset('velodyne-vlp32c');
  const plain: LidarDescription = {
    elevations: linearElevations(elevations, LIDAR.minElevationDeg, LIDAR.maxElevationDeg), azimuthSteps: azimuths, maxRange: LIDAR.maxDistance,
  };
  const cases: { workload: string; desc: LidarDescription; motion: LidarMotion; what: string; fields?: boolean }[] = [
    { workload: 'lidar-static', desc: plain, motion: {}, what: 'the plain table (no offsets, counter-clockwise from +x): today\'s static sweep' },
    { workload: 'lidar-static-fields', desc: plain, motion: {}, fields: true, what: 'the plain table with `fields: true` (the per-point fields made on the host, float64)' },
    { workload: 'lidar-vlp32c', desc: vlp32c, motion: {}, what: 'the VLP-32C preset (per-laser azimuth offsets, beam heights and firing times, clockwise, 10 Hz)' },
    { workload: 'lidar-vlp32c-plain', desc: lidarPreset('velodyne-vlp32c', { perLaser: false }), motion: {}, what: 'the VLP-32C preset without its per-laser tables (`{ perLaser: false }`)' },
    { workload: 'lidar-offsets', desc, motion: {}, what: 'beam origin 15.8 mm off the axis, per-channel azimuth offsets, clockwise' },
    { workload: 'lidar-moving-sensor', desc, motion: { poseEnd: POSE_END }, what: 'and the sensor moving 2 m and turning 1.7° during the 0.1 s sweep' },
    { workload: 'lidar-moving-boxes', desc, motion: { boxMotion: movingBoxes(boxes, moving) }, what: `and ${moving} boxes moving (≤ 15 m/s, ≤ 1 rad/s) during the sweep` },
  ];
  const sensors = new Map<LidarDescription, LidarSensor>();
  try {
    for (const { workload, desc, motion, what, fields } of cases) {
      const { elevations, azimuthSteps: azimuths } = { elevations: desc.elevations.length, azimuthSteps: desc.azimuthSteps };
      const rayCount = elevations * azimuths;
      const checkColumns = Array.from({ length: Math.ceil(azimuths / 16) }, (_, k) => 16 * k);
      const lidar = sensors.get(desc) ?? await g.createLidar(desc);
      sensors.set(desc, lidar);
      const note = `${elevations} × ${azimuths} rays; ${what}`;
      const rays = lidarRays(desc, POSE, motion.poseEnd);
      const times = Float64Array.from({ length: azimuths }, (_, a) => columnTime(desc, a));
      // Rapier: the same rays; with moving boxes, its bodies moved and the world stepped per column.
      const peers: { name: string; scene: TimedRayScene | RayScene; hits?: BenchHits }[] = [];
      for (const impl of [rapier, rapierSimd].filter((i) => want(i.name))) {
        peers.push({ name: impl.name, scene: motion.boxMotion ? await impl.timedRays!(boxes, motion.boxMotion) : await impl.buildRays!(boxes) });
      }
      const options = fields ? { ...motion, fields: true } : motion;
      let sweep = await g.lidarSweep(lidar, set, POSE, options);
      const fns: (() => Promise<unknown>)[] = [async () => {
        sweep = await g.lidarSweep(lidar, set, POSE, options);
      }];
      // With motion, the tree method too (what these sweeps ran by before the raster method took motion).
      const walker = lidar.method === 'raster' && (motion.poseEnd || motion.boxMotion) && want('gpu-bvh') ? await g.createLidar(desc, { method: 'bvh' }) : undefined;
      let walked = walker ? await g.lidarSweep(walker, set, POSE, motion) : undefined;
      if (walker) {
        fns.push(async () => {
          walked = await g.lidarSweep(walker, set, POSE, motion);
        });
      }
      for (const p of peers) {
        const peer = p.scene;
        fns.push(async () => {
          p.hits = 'sweep' in peer ? await peer.sweep(rays, elevations, azimuths, times) : await peer.closestHit(rays);
        });
      }
      const timed: Stats[] = await timeInterleaved(fns, cfg.budget);
      const cmp = compareLidarSweep({ boxes, desc, pose: POSE, motion, origin: set.origin, columns: checkColumns }, sweep);
      out.rows.push(makeRow({
        workload, implementation: `gpu-${sweep.method}`, n, queries: rayCount, stats: timed[0]!, work: rayCount, unit: 'rays/s',
        agrees: cmp.mismatch === 0, timing: 'end-to-end', check: checkNote(cmp),
        note: `${note}; ${sweep.method} method${sweep.method === 'bvh' ? ` (${sweep.reason ?? lidar.methodReason})` : ''}; range image, boxes and counts read back; checked on every 16th column`,
      }));
      if (cmp.mismatch > 0) {
        out.notes.push(`${workload}: ${cmp.mismatch} mismatches against the reference`);
      }
      if (walker && walked) {
        const wc = compareLidarSweep({ boxes, desc, pose: POSE, motion, origin: set.origin, columns: checkColumns }, walked);
        out.rows.push(makeRow({
          workload, implementation: 'gpu-bvh', n, queries: rayCount, stats: timed[1]!, work: rayCount, unit: 'rays/s',
          agrees: wc.mismatch === 0, timing: 'end-to-end', check: checkNote(wc),
          note: `${note}; bvh method (requested: the tree walk with the moving boxes tested per ray); range image, boxes and counts read back; checked on every 16th column`,
        }));
        walker.destroy();
      }
      // The reference on a slice of the columns (its cost per ray does not depend on the column).
      const sliceColumns = Math.max(1, Math.min(azimuths, Math.floor(cfg.cpuTestsPerRun / (elevations * n))));
      const slice: LidarDescription = { ...desc, azimuthSteps: sliceColumns, azimuthEnd: columnAngle(desc, sliceColumns), sweepTime: columnTime(desc, sliceColumns) };
      if (want('reference')) {
        const s = await timeBudget(() => lidarSweepReference(boxes, slice, POSE, motion), { ...cfg.budget, minRuns: 1, maxRuns: 3 });
        out.rows.push(makeRow({
          workload, implementation: 'reference', n, queries: elevations * sliceColumns, stats: s, work: elevations * sliceColumns, unit: 'rays/s',
          agrees: true, timing: 'cpu', note: `${note}; the first ${sliceColumns} of ${azimuths} columns (brute force, float64, one CPU thread)`,
        }));
      }
      for (const [k, p] of peers.entries()) {
        // Rapier against the GPU's sweep (which the reference judged) on the checked columns.
        const picked = checkColumns.flatMap((a) => Array.from({ length: elevations }, (_, c) => c * azimuths + a));
        const agreement = rapierAgrees(p.hits!, sweep.box, picked);
        out.rows.push(makeRow({
          workload, implementation: p.name, n, queries: rayCount, stats: timed[(walker ? 2 : 1) + k]!, work: rayCount, unit: 'rays/s',
          agrees: agreement.agree >= agreement.total * 0.999, timing: 'cpu',
          note: `${note}; castRay on the reference's rays${motion.boxMotion ? ', bodies moved and the world stepped before each column' : ''}; same box as the judged GPU sweep on ${agreement.agree} of ${agreement.total} rays of the checked columns`,
        }));
        p.scene.destroy();
      }
    }
    // Five sensors over one set: one submission and one readback, against five sweeps in turn.
    if (want('gpu-bvh') || want('gpu-raster')) {
      const small = Math.max(1, elevations >> 2);
      const sensors = await Promise.all([0, 1, 2, 3, 4].map((k) => g.createLidar(k === 0 ? desc : { ...desc, elevations: linearElevations(small, -15, 15), azimuthOffsets: desc.azimuthOffsets!.slice(0, small) })));
      const poses: LidarPose[] = [0, 1, 2, 3, 4].map((k) => ({ origin: [k === 0 ? 0 : 2 * Math.cos((k * Math.PI) / 2), k === 0 ? 0 : 2 * Math.sin((k * Math.PI) / 2), 0] }));
      try {
        const jobs = sensors.map((sensor, k) => ({ sensor, pose: poses[k]! }));
        const rays = sensors.reduce((s, x) => s + x.rayCount, 0);
        const [many, one] = await timeInterleaved([
          () => g.lidarSweepMany(set, jobs),
          async () => {
            for (const j of jobs) {
              await g.lidarSweep(j.sensor, set, j.pose);
            }
          },
        ], cfg.budget);
        const note = `5 sensors with offsets (one ${elevations} × ${azimuths}, four ${small} × ${azimuths}), ${rays} rays`;
        out.rows.push(makeRow({ workload: 'lidar-many', implementation: `gpu-${sensors[0]!.method}`, n, queries: rays, stats: many!, work: rays, unit: 'rays/s', agrees: null, timing: 'end-to-end', note: `${note}; lidarSweepMany: one submission, one readback` }));
        out.rows.push(makeRow({ workload: 'lidar-many', implementation: `gpu-${sensors[0]!.method}-sequential`, n, queries: rays, stats: one!, work: rays, unit: 'rays/s', agrees: null, timing: 'end-to-end', note: `${note}; five lidarSweep calls, each awaited` }));
      } finally {
        for (const s of sensors) {
          s.destroy();
        }
      }
    }
  } finally {
    for (const lidar of sensors.values()) {
      lidar.destroy();
    }
    set.destroy();
  }
  return out;
}
