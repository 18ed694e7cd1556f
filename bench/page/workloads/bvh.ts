/**
 * BVH workloads (issue #4): the build split into its phases (`bvh-build`: bounds, codes, sort,
 * hierarchy, refit; GPU time from timestamp queries when the adapter has them), and the LiDAR
 * sweep with rays generated on the GPU from a pose (`lidar-gpu-rays`: what a simulator uploads
 * per sweep is 64 bytes, not 12 MB of rays), checked against the reference's closest hits.
 */
import { Bvh } from '../../../src/tree/Bvh.ts';
import { linearElevations, type LidarDescription } from '../../../src/index.ts';
import { compareClosestHits } from '../../../src/judge/index.ts';
import { closestHitGrid, lidarRays as lidarRaysOf } from '../../../src/reference/index.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { sharedGpu } from '../gpu.ts';
import { makeRow, stats, timeBudget, timeGpu, type Row } from '../measure.ts';
import { LIDAR, lidarScene, pickingRays, pickingScene } from '../scenes.ts';
import { bvhSahCost, bvhWalkCounts } from '../../../src/tree/quality.ts';
import { BOX_F64 } from '../../../src/core/types.ts';
import { mulberry32 } from '../../../src/judge/index.ts';
import { timeClosestKernel } from '../impls/gpuKernel.ts';
import { boxBounds, checkBoxRange, defaultOrigin, packBoxes } from '../../../src/advanced.ts';
import { validateBoxArray } from '../../../src/index.ts';

/** Build time per phase for a picking scene of n boxes (medians over the budget's runs). */
export async function buildPhases(n: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  if (cfg.implementations && !cfg.implementations.includes('gpu-bvh')) {
    return out;
  }
  const g = await sharedGpu();
  const boxes = pickingScene(n);
  const set = g.createBoxSet(boxes);
  const bvh = await Bvh.create(g.ctx, set);
  try {
    await bvh.profileBuild(); // warm-up: first dispatches of each pipeline include the driver's compile
    const samples: Record<string, number[]> = {};
    let timing = 'gpu-wall';
    const runs = Math.max(3, Math.min(7, cfg.buildBudget.maxRuns));
    for (let k = 0; k < runs; k++) {
      const p = await bvh.profileBuild();
      timing = p.timing;
      for (const [phase, ms] of Object.entries(p.phases)) {
        (samples[phase] ??= []).push(ms);
      }
    }
    const total: number[] = [];
    for (let k = 0; k < runs; k++) {
      total.push(Object.values(samples).reduce((s, v) => s + v[k]!, 0));
    }
    for (const [phase, list] of [...Object.entries(samples), ['total', total] as const]) {
      out.rows.push(makeRow({
        workload: `bvh-build-${phase}`, implementation: 'gpu-bvh', n, queries: 0, stats: stats(list), work: n,
        unit: 'boxes/s', agrees: null, timing, note: phase === 'total' ? 'sum of the phases, each its own submission' : `phase ${phase}`,
      }));
    }
    // The tree's quality: SAH, and the picking-1024 rays' walks counted on the GPU (the counting
    // kernel) and by the float64 twin over the read-back tree (wide, and binary: the walk before).
    const snap = await bvh.snapshot();
    const rays = pickingRays(1024, n);
    const onGpu = await g.rays.walkCounts(set, rays, bvh);
    const wide = bvhWalkCounts(snap, boxes, set.origin, rays, 'wide');
    const binary = bvhWalkCounts(snap, boxes, set.origin, rays, 'binary');
    const mean = (a: Uint32Array): number => Number((a.reduce((sum, x) => sum + x, 0) / Math.max(1, a.length)).toPrecision(4));
    const totalRow = out.rows[out.rows.length - 1]!;
    totalRow.sah = Number(bvhSahCost(snap, boxes).toPrecision(6));
    totalRow.nodes_per_ray = mean(onGpu.nodes);
    totalRow.box_tests_per_ray = mean(onGpu.boxTests);
    totalRow.note = `${totalRow.note}; tree: SAH ${totalRow.sah} (unit costs); picking-1024 walk counted on the GPU: ${totalRow.nodes_per_ray} wide records and ${totalRow.box_tests_per_ray} box tests per ray (the float64 twin: ${mean(wide.nodes)} and ${mean(wide.boxTests)}; the binary walk: ${mean(binary.nodes)} nodes, ${mean(binary.boxTests)} box tests)`;
    out.rows.push(...await hostPhases(n, boxes, cfg));
    // The refit alone, as a moving scene runs it every frame (one submission).
    const refit = await timeBudget(async () => {
      await bvh.refit();
      await g.ctx.device.queue.onSubmittedWorkDone();
    }, cfg.buildBudget);
    out.rows.push(makeRow({ workload: 'bvh-refit', implementation: 'gpu-bvh', n, queries: 0, stats: refit, work: n, unit: 'boxes/s', agrees: null, timing: 'end-to-end' }));
  } finally {
    bvh.destroy();
    set.destroy();
  }
  return out;
}

/**
 * The host's part of a build end to end, phase by phase (`bvh-build-host-*` rows; wall time,
 * medians): validating and canonicalising the boxes, the range check and the floating origin,
 * packing to the GPU layout, the upload (writeBuffer to the queue's idle), and making the tree's
 * buffers and pipelines (Bvh.create). What `build` times end to end besides the GPU phases.
 */
async function hostPhases(n: number, boxes: ReturnType<typeof pickingScene>, cfg: BenchConfig): Promise<ReturnType<typeof makeRow>[]> {
  const g = await sharedGpu();
  const samples: Record<string, number[]> = { validate: [], 'validate-adopt': [], range: [], pack: [], upload: [], buffers: [], 'end-to-end-copy': [], 'end-to-end-adopt': [] };
  const endToEnd = async (adopt: boolean): Promise<number> => {
    // The caller's own array (made untimed): with adopt the set takes it, without it copies it.
    const own = { count: boxes.count, data: boxes.data.slice() };
    const t = performance.now();
    const set = g.createBoxSet(own, { adopt });
    await g.buildBvh(set);
    await g.ctx.device.queue.onSubmittedWorkDone();
    const ms = performance.now() - t;
    set.destroy();
    return ms;
  };
  const runs = Math.max(3, Math.min(5, cfg.buildBudget.maxRuns));
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    const canonical = validateBoxArray(boxes.data, boxes.count);
    const t1 = performance.now();
    const bounds = boxBounds(canonical);
    const origin = defaultOrigin(canonical, bounds);
    checkBoxRange(canonical, origin, 0, bounds);
    const t2 = performance.now();
    const packed = packBoxes(canonical, origin);
    const t3 = performance.now();
    const buffer = g.ctx.device.createBuffer({ label: 'bench:boxes', size: packed.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    g.ctx.device.queue.writeBuffer(buffer, 0, packed);
    await g.ctx.device.queue.onSubmittedWorkDone();
    const t4 = performance.now();
    buffer.destroy();
    // The set's own upload done first: `buffers` times the tree's allocation alone.
    const set = g.createBoxSet(boxes);
    await g.ctx.device.queue.onSubmittedWorkDone();
    const t5 = performance.now();
    const bvh = await Bvh.create(g.ctx, set);
    await g.ctx.device.queue.onSubmittedWorkDone();
    const t6 = performance.now();
    bvh.destroy();
    set.destroy();
    samples['validate']!.push(t1 - t0);
    samples['range']!.push(t2 - t1);
    samples['pack']!.push(t3 - t2);
    samples['upload']!.push(t4 - t3);
    samples['buffers']!.push(t6 - t5);
    // Validation in place (createBoxSet's adopt), on a copy made untimed.
    const own = boxes.data.slice();
    const t7 = performance.now();
    validateBoxArray(own, boxes.count, { out: own });
    samples['validate-adopt']!.push(performance.now() - t7);
    // A whole build, copying the boxes and adopting them, one after the other.
    samples['end-to-end-copy']!.push(await endToEnd(false));
    samples['end-to-end-adopt']!.push(await endToEnd(true));
  }
  const what: Record<string, string> = {
    validate: 'validate and canonicalise the float64 boxes (one JS pass)',
    'validate-adopt': 'the same in place, into the caller\'s array (createBoxSet\'s adopt)', range: 'the floating origin and the range check',
    pack: 'pack to the GPU layout (float32, relative to the origin)', upload: 'writeBuffer of the packed boxes, to the queue\'s idle',
    buffers: 'Bvh.create: the tree\'s buffers and its sort\'s, pipelines cached',
    'end-to-end-copy': 'createBoxSet(boxes) + buildBvh to the queue\'s idle, as the build row (interleaved with the next row)',
    'end-to-end-adopt': 'createBoxSet(boxes, { adopt: true }) + buildBvh to the queue\'s idle: no host copy',
  };
  return Object.entries(samples).map(([phase, list]) => makeRow({
    workload: `bvh-build-host-${phase}`, implementation: 'gpu-bvh', n, queries: 0, stats: stats(list), work: n,
    unit: 'boxes/s', agrees: null, timing: 'end-to-end', note: `host phase: ${what[phase]}`,
  }));
}

/**
 * How a refitted tree decays as boxes scatter, and what a rebuild buys back (`bvh-refit-decay`):
 * the picking scene of n boxes random-walks `frames` frames (each box steps up to 5% of the
 * scene's extent per axis per frame); each frame one tree is only refitted, one rebuilt, and
 * ObbGpu's own tree does what its policy says (BVH_REBUILD_SAH_RATIO). Rows per frame and tree:
 * the picking-1024 kernel time over it, its SAH cost (measured by the refit on the GPU), and the
 * refit or build time.
 */
export async function refitDecay(n: number, frames: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  if (cfg.implementations && !cfg.implementations.includes('gpu-bvh')) {
    return out;
  }
  const g = await sharedGpu();
  let boxes = pickingScene(n);
  const rays = pickingRays(1024, n);
  const set = g.createBoxSet(boxes);
  const refitted = await Bvh.create(g.ctx, set);
  const rebuilt = await Bvh.create(g.ctx, set);
  const rnd = mulberry32(1234);
  const step = 0.05 * 50 * Math.cbrt(n / 10_000);
  const S = BOX_F64.STRIDE;
  const timed = async (f: () => Promise<void>): Promise<number> => {
    const t0 = performance.now();
    await f();
    await g.ctx.device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  };
  try {
    await refitted.build();
    await g.buildBvh(set);
    const built = await refitted.sahCost();
    const runs = Math.max(3, Math.min(7, cfg.budget.maxRuns));
    for (let frame = 0; frame <= frames; frame++) {
      if (frame > 0) {
        const data = boxes.data.slice();
        for (let i = 0; i < n; i++) {
          for (let k = 0; k < 3; k++) {
            data[i * S + k] = data[i * S + k]! + step * (2 * rnd() - 1);
          }
        }
        boxes = { count: n, data };
        await set.update(0, boxes);
      }
      const refitMs = await timed(() => refitted.refit());
      const buildMs = await timed(() => rebuilt.build());
      const managedMs = await timed(async () => {
        await g.bvhOf(set);
      });
      const managed = (await g.bvhOf(set))!;
      for (const [name, tree, ms, what] of [
        ['gpu-bvh-refit', refitted, refitMs, 'refit'], ['gpu-bvh-rebuild', rebuilt, buildMs, 'build'], ['gpu-bvh-managed', managed, managedMs, 'ObbGpu refit or rebuild'],
      ] as const) {
        const k = await timeClosestKernel(g, set, rays, runs, tree);
        const sah = await tree.sahCost();
        const row = makeRow({
          workload: 'bvh-refit-decay', implementation: name, n, queries: rays.count, stats: stats(k.samples), work: rays.count, unit: 'rays/s',
          agrees: null, timing: k.timing,
          note: `frame ${frame}: picking-1024 kernel over the tree; SAH ${sah.toPrecision(4)} (${(sah / built).toFixed(2)}× the first build's); ${what} ${ms.toFixed(1)} ms (wall)`,
        });
        row.sah = Number(sah.toPrecision(6));
        out.rows.push(row);
      }
      const [r, b, m] = out.rows.slice(-3) as [Row, Row, Row];
      out.notes.push(`bvh-refit-decay n=${n} frame ${frame}: picking-1024 kernel ${r.median_ms} (refitted) / ${b.median_ms} (rebuilt) / ${m.median_ms} ms (ObbGpu's); SAH ${[r, b, m].map((x) => ((x.sah ?? 0) / built).toFixed(2)).join(' / ')}× the first build's; refit ${refitMs.toFixed(0)} ms, build ${buildMs.toFixed(0)} ms`);
    }
  } finally {
    refitted.destroy();
    rebuilt.destroy();
    set.destroy();
  }
  return out;
}

/**
 * A LiDAR sweep with rays generated on the GPU (pose in, range image out), by each sensor method
 * (rows `gpu-raster`, `gpu-bvh`; the BVH built once before timing), vs the reference.
 */
export async function lidarGpuRays(boxes: number, elevations: number, azimuths: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const methods = (['raster', 'bvh'] as const).filter((m) => !cfg.implementations || cfg.implementations.includes(`gpu-${m}`));
  if (methods.length === 0) {
    return out;
  }
  const g = await sharedGpu();
  const scene = lidarScene(boxes);
  const set = g.createBoxSet(scene);
  const desc: LidarDescription = {
    elevations: linearElevations(elevations, LIDAR.minElevationDeg, LIDAR.maxElevationDeg), azimuthSteps: azimuths, maxRange: LIDAR.maxDistance,
  };
  const pose = { origin: [0, 0, 0] as const };
  // The reference on a slice of the rays (every 16th azimuth column).
  const rays = lidarRaysOf(desc, pose);
  const pick = Array.from({ length: rays.count }, (_, r) => r).filter((r) => (r % azimuths) % 16 === 0);
  const sub = { count: pick.length, data: Float64Array.from(pick.flatMap((r) => Array.from(rays.data.subarray(7 * r, 7 * r + 7)))) };
  const ref = closestHitGrid(scene, sub);
  try {
    await g.buildBvh(set);
    const tree = await g.bvhOf(set);
    for (const method of methods) {
      const sensor = await g.createLidar(desc, { method });
      try {
        let sweep = await g.lidarSweep(sensor, set, pose);
        const s = await timeBudget(async () => {
          sweep = await g.lidarSweep(sensor, set, pose);
        }, cfg.budget);
        // GPU time of the sweep alone (nothing read back).
        const kernel = await timeGpu(g.ctx.device, (enc, ts) => sensor.encodeSweep(enc, set, tree, pose, ts ? { timestampWrites: ts } : {}), Math.max(3, s.runs), 0);
        const hits = {
          count: pick.length, box: Int32Array.from(pick, (r) => sweep.box[r]!),
          t: Float32Array.from(pick, (r) => (sweep.range[r]! < 0 ? Infinity : sweep.range[r]!)),
          face: new Uint8Array(pick.length), inside: new Uint8Array(pick.length),
        };
        const cmp = compareClosestHits({ boxes: set.boxes, rays: sub, origin: set.origin }, hits, ref, { checkFaces: false });
        const n = elevations * azimuths;
        const how = method === 'raster' ? 'boxes rasterised into the range image, no tree' : 'each ray walks the BVH';
        const note = `${elevations} × ${azimuths} rays generated on the GPU from a 64-byte pose (${how}); ${sweep.box.filter((b) => b >= 0).length} returns`;
        out.rows.push(makeRow({
          workload: 'lidar-gpu-rays', implementation: `gpu-${method}`, n: boxes, queries: n, stats: s, work: n, unit: 'rays/s',
          agrees: cmp.mismatch === 0, timing: 'end-to-end', note: `${note}; range image and boxes read back`,
          check: { checked: cmp.total, ambiguous: cmp.ambiguous, mismatch: cmp.mismatch, reasons: Object.entries({ ...cmp.ambiguousByReason, ...cmp.mismatchByReason }).map(([k, v]) => `${k} ${v}`).join(', ') },
        }));
        out.rows.push(makeRow({
          workload: 'lidar-gpu-rays', implementation: `gpu-${method}-kernel`, n: boxes, queries: n, stats: kernel.stats, work: n, unit: 'rays/s',
          agrees: cmp.mismatch === 0, timing: kernel.timing, wallMedian: kernel.wall.median, note: `${note}; the sweep's passes only, nothing read back`,
        }));
        if (cmp.mismatch > 0) {
          out.notes.push(`lidar-gpu-rays (${method}): ${cmp.mismatch} mismatches against the reference`);
        }
      } finally {
        sensor.destroy();
      }
    }
  } finally {
    set.destroy();
  }
  return out;
}
