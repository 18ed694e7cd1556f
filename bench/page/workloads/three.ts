/**
 * three.js scenes (webgpu-obb/three): one InstancedMesh of `n` unit boxes (the picking scene's
 * boxes as instance matrices), as an editor holds them. Workloads, each with `n` in the row:
 * - `three-build`: from the scene to something that answers picks;
 * - `three-pick-1`, `three-pick-1024`: closest hits of the picking rays, end to end, as three.js
 *   `Intersection`s;
 * - `three-marquee`: the instances in the frustum of a screen rectangle;
 * - `three-sync-1pct`, `three-sync-100pct`: a frame in which 1% (100%) of the instances moved:
 *   the new instance matrices written, then whatever makes picks right again.
 *
 * Implementations:
 * - `gpu-three`: ThreeBoxes (pick / pickEach / select / sync) on the page's ObbGpu;
 * - `three`: three's own Raycaster over the InstancedMesh (`intersectObject`, brute force over
 *   the instances; after moves, `computeBoundingSphere()`, which its raycast culls with); the
 *   marquee by three's Frustum against each instance's world bounding box (`intersectsBox`, a
 *   conservative superset, as three culls);
 * - `three-mesh-bvh`: the instances baked into one BufferGeometry (12 triangles each) under a
 *   MeshBVH, raycast with `firstHitOnly` (its fast path); after moves, the moved vertices
 *   rewritten and `refit()`. three-mesh-bvh has no frustum query, so no marquee row;
 * - `reference`: the float64 reference (closestHit, frustumCull) on the boxes ThreeBoxes made.
 *
 * Every answer is checked: picks through the comparator against the reference on the same boxes
 * (instance id = box index here), the marquee against `frustumCull`, and after the sync rows
 * every implementation is brought to one state and checked again.
 */
import {
  Box3, BoxGeometry, BufferAttribute, BufferGeometry, Frustum, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial,
  PerspectiveCamera, Quaternion, Raycaster, Scene, Vector3, type Intersection,
} from 'three';
import { acceleratedRaycast, MeshBVH } from 'three-mesh-bvh';
import { RAY_F64, type BoxArray, type RayArray } from '../../../src/index.ts';
import { closestHit, frustumCull, type ClosestHits } from '../../../src/reference/index.ts';
import { ThreeBoxes } from '../../../src/three/index.ts';
import { mulberry32 } from '../../../src/scenes/generate.ts';
import { checkClosestHits } from '../check.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { sharedGpu } from '../gpu.ts';
import type { BenchHits } from '../impls/types.ts';
import { makeRow, timeInterleaved, timeRoundsInterleaved, type Row, type Stats } from '../measure.ts';
import { pickingExtent, pickingRays, pickingScene, raySlice } from '../scenes.ts';

const ORIGIN = [0, 0, 0] as const;
const fmt = (x: number): string => x.toLocaleString('en-US');

/** Column-major instance matrix of box i: axes scaled by the full sizes, then the centre. */
function matrixOf(boxes: BoxArray, i: number, out: Float32Array, at: number): void {
  const d = boxes.data;
  const o = i * 15;
  for (let a = 0; a < 3; a++) {
    const s = 2 * d[o + 3 + a]!;
    out[at + 4 * a] = d[o + 6 + 3 * a]! * s;
    out[at + 4 * a + 1] = d[o + 7 + 3 * a]! * s;
    out[at + 4 * a + 2] = d[o + 8 + 3 * a]! * s;
    out[at + 4 * a + 3] = 0;
  }
  out.set([d[o]!, d[o + 1]!, d[o + 2]!, 1], at + 12);
}

/** One frame's moves: `count` distinct instances, each given a new pose. */
interface Moves {
  indices: Uint32Array;
  matrices: Float32Array;
}

function movesFor(n: number, count: number, extent: number, seed: number): Moves {
  const rnd = mulberry32(seed);
  const indices = count >= n ? Uint32Array.from({ length: n }, (_, i) => i) : new Uint32Array(count);
  if (count < n) {
    const seen = new Set<number>();
    for (let k = 0; k < count;) {
      const i = Math.floor(rnd() * n);
      if (!seen.has(i)) {
        seen.add(i);
        indices[k++] = i;
      }
    }
  }
  const matrices = new Float32Array(indices.length * 16);
  const m = new Matrix4(), q = new Quaternion(), p = new Vector3(), s = new Vector3();
  for (let k = 0; k < indices.length; k++) {
    q.set(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
    p.set((rnd() - 0.5) * extent, (rnd() - 0.5) * extent, (rnd() - 0.5) * extent);
    s.set(0.4 + 3.6 * rnd(), 0.4 + 3.6 * rnd(), 0.4 + 3.6 * rnd());
    m.compose(p, q, s).toArray(matrices, 16 * k);
  }
  return { indices, matrices };
}

/** The eye of the picking rays as a three.js camera (60° vertical, 16:9, z up). */
function pickingCamera(n: number): PerspectiveCamera {
  const e = pickingExtent(n);
  const camera = new PerspectiveCamera(60, 16 / 9, 0.1, 10 * e);
  camera.up.set(0, 0, 1);
  camera.position.set(0, -2.2 * e, 1.0 * e);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld(true);
  return camera;
}

/** The 24 vertices of BoxGeometry(1, 1, 1) and its 36 indices. */
const UNIT = new BoxGeometry(1, 1, 1);
const UNIT_POS = UNIT.getAttribute('position').array as Float32Array;
const UNIT_INDEX = UNIT.getIndex()!.array as Uint16Array;
const VERTS = UNIT_POS.length / 3;

/** Writes instance i's 24 world vertices (matrix `m`, column-major at `at`) into `pos`. */
function bake(pos: Float32Array, i: number, m: ArrayLike<number>, at: number): void {
  const o = i * VERTS * 3;
  for (let v = 0; v < VERTS; v++) {
    const x = UNIT_POS[3 * v]!, y = UNIT_POS[3 * v + 1]!, z = UNIT_POS[3 * v + 2]!;
    pos[o + 3 * v] = m[at]! * x + m[at + 4]! * y + m[at + 8]! * z + m[at + 12]!;
    pos[o + 3 * v + 1] = m[at + 1]! * x + m[at + 5]! * y + m[at + 9]! * z + m[at + 13]!;
    pos[o + 3 * v + 2] = m[at + 2]! * x + m[at + 6]! * y + m[at + 10]! * z + m[at + 14]!;
  }
}

/** An implementation under test: how it builds, picks, selects and follows moves. */
interface Competitor {
  name: string;
  device: 'gpu' | 'cpu';
  /** Rays it gets per pick call (a slice for brute-force CPU ones). */
  slice(rays: number): number;
  build(): Promise<void>;
  pick(raycasters: Raycaster[]): Promise<BenchHits>;
  select?(camera: PerspectiveCamera): Promise<number>;
  sync?(moves: Moves): Promise<void>;
  destroy(): void;
}

function raycastersOf(rays: RayArray): Raycaster[] {
  const out: Raycaster[] = [];
  for (let r = 0; r < rays.count; r++) {
    const o = r * RAY_F64.STRIDE;
    const d = rays.data;
    const rc = new Raycaster(new Vector3(d[o]!, d[o + 1]!, d[o + 2]!), new Vector3(d[o + 3]!, d[o + 4]!, d[o + 5]!), 0, d[o + RAY_F64.MAX]!);
    out.push(rc);
  }
  return out;
}

function hitsOf(list: (Intersection | undefined)[], boxOf: (h: Intersection) => number): BenchHits {
  const box = new Int32Array(list.length).fill(-1);
  const t = new Float64Array(list.length).fill(Infinity);
  list.forEach((h, k) => {
    if (h) {
      box[k] = boxOf(h);
      t[k] = h.distance;
    }
  });
  return { box, t };
}

/** The marquee: the middle fifth of the screen, as a frustum (three's planes). */
const RECT = { x0: -0.2, y0: -0.2, x1: 0.2, y1: 0.2 } as const;

function marqueeFrustum(camera: PerspectiveCamera): Frustum {
  const { x0, y0, x1, y1 } = RECT;
  const sub = new Matrix4().set(
    2 / (x1 - x0), 0, 0, -(x0 + x1) / (x1 - x0),
    0, 2 / (y1 - y0), 0, -(y0 + y1) / (y1 - y0),
    0, 0, 1, 0,
    0, 0, 0, 1,
  ).multiply(camera.projectionMatrix).multiply(camera.matrixWorldInverse);
  return new Frustum().setFromProjectionMatrix(sub, camera.coordinateSystem);
}

export async function three(n: number, rayCounts: readonly number[], cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const gpu = await sharedGpu();
  const source = pickingScene(n);
  const extent = pickingExtent(n);
  const initial = new Float32Array(16 * n);
  for (let i = 0; i < n; i++) {
    matrixOf(source, i, initial, 16 * i);
  }
  const cpuSlice = (rays: number): number => cpuShare(cfg, n, rays);
  const instanced = (): InstancedMesh => {
    const mesh = new InstancedMesh(UNIT, new MeshBasicMaterial(), n);
    (mesh.instanceMatrix.array as Float32Array).set(initial);
    const scene = new Scene();
    scene.add(mesh);
    scene.updateMatrixWorld(true);
    return mesh;
  };
  const applyMoves = (mesh: InstancedMesh, moves: Moves): void => {
    const a = mesh.instanceMatrix.array as Float32Array;
    for (let k = 0; k < moves.indices.length; k++) {
      a.set(moves.matrices.subarray(16 * k, 16 * k + 16), 16 * moves.indices[k]!);
    }
    mesh.instanceMatrix.needsUpdate = true;
  };

  // ThreeBoxes on the page's ObbGpu.
  const gpuMesh = instanced();
  let boxes: ThreeBoxes | undefined;
  const ours: Competitor = {
    name: 'gpu-three', device: 'gpu', slice: (r) => r,
    async build() {
      boxes?.destroy();
      boxes = await ThreeBoxes.create(gpu, [gpuMesh]);
    },
    async pick(raycasters) {
      const list = raycasters.length === 1 ? [(await boxes!.pick(raycasters[0]!))[0]] : await boxes!.pickEach(raycasters);
      return hitsOf(list, (h) => h.instanceId!);
    },
    async select(camera) {
      return (await boxes!.select(RECT, camera)).length;
    },
    async sync(moves) {
      applyMoves(gpuMesh, moves);
      await boxes!.sync();
    },
    destroy: () => boxes?.destroy(),
  };

  // three's Raycaster over the InstancedMesh.
  const plainMesh = instanced();
  const plain: Competitor = {
    name: 'three', device: 'cpu', slice: cpuSlice,
    build() {
      plainMesh.boundingSphere = null;
      plainMesh.computeBoundingSphere();
      return Promise.resolve();
    },
    pick(raycasters) {
      return Promise.resolve(hitsOf(raycasters.map((r) => r.intersectObject(plainMesh, false)[0]), (h) => h.instanceId!));
    },
    select(camera) {
      const frustum = marqueeFrustum(camera);
      const m = new Matrix4(), box = new Box3();
      UNIT.computeBoundingBox();
      let count = 0;
      for (let i = 0; i < n; i++) {
        plainMesh.getMatrixAt(i, m);
        if (frustum.intersectsBox(box.copy(UNIT.boundingBox!).applyMatrix4(m))) {
          count++;
        }
      }
      return Promise.resolve(count);
    },
    sync(moves) {
      applyMoves(plainMesh, moves);
      plainMesh.computeBoundingSphere();
      return Promise.resolve();
    },
    destroy: () => {},
  };

  // three-mesh-bvh over the baked instances.
  const positions = new Float32Array(n * VERTS * 3);
  const index = new Uint32Array(n * UNIT_INDEX.length);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < UNIT_INDEX.length; k++) {
      index[i * UNIT_INDEX.length + k] = UNIT_INDEX[k]! + i * VERTS;
    }
  }
  const baked = new BufferGeometry();
  baked.setAttribute('position', new BufferAttribute(positions, 3));
  baked.setIndex(new BufferAttribute(index, 1));
  const bakedMesh = new Mesh(baked, new MeshBasicMaterial());
  bakedMesh.raycast = acceleratedRaycast;
  bakedMesh.updateMatrixWorld(true);
  let bvh: MeshBVH | undefined;
  const bvhPeer: Competitor = {
    name: 'three-mesh-bvh', device: 'cpu', slice: (r) => r,
    build() {
      for (let i = 0; i < n; i++) {
        bake(positions, i, initial, 16 * i);
      }
      bvh = new MeshBVH(baked);
      baked.boundsTree = bvh;
      return Promise.resolve();
    },
    pick(raycasters) {
      return Promise.resolve(hitsOf(raycasters.map((r) => {
        r.firstHitOnly = true;
        return r.intersectObject(bakedMesh, false)[0];
      // MeshBVH reorders the index buffer as it builds: the face's first vertex says the box.
      }), (h) => Math.floor(h.face!.a / VERTS)));
    },
    sync(moves) {
      for (let k = 0; k < moves.indices.length; k++) {
        bake(positions, moves.indices[k]!, moves.matrices, 16 * k);
      }
      baked.getAttribute('position').needsUpdate = true;
      bvh!.refit();
      return Promise.resolve();
    },
    destroy: () => {},
  };

  const competitors = [ours, plain, bvhPeer];
  const note = {
    'gpu-three': 'ThreeBoxes (webgpu-obb/three)',
    three: 'Raycaster.intersectObject(InstancedMesh), brute force over the instances',
    'three-mesh-bvh': 'the instances baked into one geometry (12 triangles each) under a MeshBVH; firstHitOnly',
  } as Record<string, string>;
  try {
    // Build.
    const built = await timeInterleaved(competitors.map((c) => () => c.build()), cfg.buildBudget);
    competitors.forEach((c, k) => out.rows.push(makeRow({
      workload: 'three-build', implementation: c.name, n, queries: 1, stats: built[k]!, work: n, unit: 'boxes/s',
      agrees: null, timing: c.device === 'gpu' ? 'end-to-end' : 'cpu',
      note: [note[c.name], c.name === 'three' ? 'computeBoundingSphere (three builds nothing else)' : ''].filter(Boolean).join('; '),
    })));
    const set = boxes!.set.boxes;

    // Picks.
    for (const count of rayCounts) {
      await picks(`three-pick-${count}`, set, pickingRays(count, n), competitors, note, cfg, out);
    }

    // Marquee.
    const camera = pickingCamera(n);
    const frustum = marqueeFrustum(camera);
    const planes = frustum.planes.map((p) => [p.normal.x, p.normal.y, p.normal.z, p.constant] as const);
    const selectors = competitors.filter((c) => c.select);
    let exact = 0;
    const timedSelect = await timeInterleaved([
      ...selectors.map((c) => () => c.select!(camera)),
      () => {
        exact = frustumCull(set, planes, { exact: true }).length;
      },
    ], cfg.budget);
    for (const [k, c] of selectors.entries()) {
      const got = await c.select!(camera);
      const agrees = c.name === 'three' ? got >= exact : got === exact;
      out.rows.push(makeRow({
        workload: 'three-marquee', implementation: c.name, n, queries: 1, stats: timedSelect[k]!, work: n, unit: 'boxes/s',
        agrees, timing: c.device === 'gpu' ? 'end-to-end' : 'cpu',
        note: `${fmt(got)} selected (exact: ${fmt(exact)})${c.name === 'three' ? '; world bounding boxes: a superset' : ''}`,
      }));
    }
    out.rows.push(makeRow({
      workload: 'three-marquee', implementation: 'reference', n, queries: 1, stats: timedSelect[selectors.length]!, work: n, unit: 'boxes/s',
      agrees: true, timing: 'cpu', note: `frustumCull, float64: ${fmt(exact)} selected`,
    }));

    // Sync: one frame's moves.
    for (const [workload, fraction] of [['three-sync-1pct', 0.01], ['three-sync-100pct', 1]] as const) {
      const count = Math.max(1, Math.round(n * fraction));
      const synced = await timeRoundsInterleaved(
        (round) => movesFor(n, count, extent, 9000 + round),
        competitors.map((c) => (m: Moves) => c.sync!(m)),
        cfg.budget,
      );
      // One state for all: every instance where the last full move put it, then a pick check.
      const all = movesFor(n, n, extent, 9999);
      for (const c of competitors) {
        await c.sync!(all);
      }
      const rays = pickingRays(rayCounts[rayCounts.length - 1]!, n);
      const checks = await checkAll(boxes!.set.boxes, rays, competitors, out, `${workload} (after sync) n=${fmt(n)}`);
      competitors.forEach((c, k) => out.rows.push(makeRow({
        workload, implementation: c.name, n, queries: count, stats: synced.stats[k]!, work: count, unit: 'moves/s',
        agrees: checks.get(c.name) ?? null, timing: c.device === 'gpu' ? 'end-to-end' : 'cpu',
        note: [note[c.name], `${fmt(count)} of ${fmt(n)} instances moved per frame; picks checked after`].join('; '),
      })));
    }
  } finally {
    for (const c of competitors) {
      c.destroy();
    }
    bvh = undefined;
  }
  return out;
}

/** Picks timed interleaved, with the reference, each checked against the reference's answers. */
async function picks(
  workload: string, set: BoxArray, rays: RayArray, competitors: Competitor[], note: Record<string, string>,
  cfg: BenchConfig, out: SuiteResult,
): Promise<void> {
  const n = set.count;
  // The reference's answers for every ray (once, untimed) check each competitor on all it ran;
  // it is timed, like the other brute-force CPU rows, on a slice.
  const refAll = closestHit(set, rays);
  const refCount = cpuShare(cfg, n, rays.count);
  const refRays = raySlice(rays, refCount);
  const runs = competitors.map((c) => {
    const count = c.slice(rays.count);
    return { c, count, raycasters: raycastersOf(raySlice(rays, count)), hits: undefined as BenchHits | undefined };
  });
  const timed = await timeInterleaved([
    ...runs.map((r) => async () => {
      r.hits = await r.c.pick(r.raycasters);
    }),
    () => closestHit(set, refRays),
  ], cfg.budget);
  const rows: Row[] = [];
  for (const [k, r] of runs.entries()) {
    const check = checkClosestHits(set, raySlice(rays, r.count), firstHits(refAll, r.count), r.hits!, ORIGIN, `${workload} n=${fmt(n)} ${r.c.name}`);
    if (check.details) {
      out.notes.push(check.details);
    }
    rows.push(pickRow(workload, r.c.name, n, r.count, rays.count, timed[k]!, check.agrees, check.summary, r.c.device, note[r.c.name] ?? ''));
  }
  rows.push(pickRow(workload, 'reference', n, refCount, rays.count, timed[runs.length]!, true, undefined, 'cpu', 'closestHit, float64'));
  out.rows.push(...rows);
}

function pickRow(
  workload: string, implementation: string, n: number, count: number, total: number, s: Stats, agrees: boolean,
  check: Parameters<typeof makeRow>[0]['check'], device: 'gpu' | 'cpu', what: string,
): Row {
  const slice = count < total ? `first ${fmt(count)} of ${fmt(total)} rays (brute force on one CPU thread)` : '';
  return makeRow({
    workload, implementation, n, queries: count, stats: s, work: count, unit: 'rays/s', agrees,
    timing: device === 'gpu' ? 'end-to-end' : 'cpu', ...(check ? { check } : {}),
    note: [what, slice].filter(Boolean).join('; '),
  });
}

/** Rays a brute-force CPU competitor runs per call: about cfg.cpuTestsPerRun / 10 ray–instance tests (three's instanced raycast costs ~10 of ours each). */
function cpuShare(cfg: BenchConfig, n: number, rays: number): number {
  return Math.max(1, Math.min(rays, Math.floor(cfg.cpuTestsPerRun / n / 10)));
}

/** The first `count` answers of `hits`. */
function firstHits(hits: ClosestHits, count: number): ClosestHits {
  return { count, box: hits.box.subarray(0, count), t: hits.t.subarray(0, count), face: hits.face.subarray(0, count), inside: hits.inside.subarray(0, count) };
}

/** After the sync rows: each competitor's picks on the common state, against the reference. */
async function checkAll(set: BoxArray, rays: RayArray, competitors: Competitor[], out: SuiteResult, what: string): Promise<Map<string, boolean>> {
  const count = Math.max(1, Math.min(rays.count, 64));
  const slice = raySlice(rays, count);
  const ref = closestHit(set, slice);
  const result = new Map<string, boolean>();
  for (const c of competitors) {
    const hits = await c.pick(raycastersOf(slice));
    const check = checkClosestHits(set, slice, ref, hits, ORIGIN, `${what} ${c.name}`);
    if (check.details) {
      out.notes.push(check.details);
    }
    result.set(c.name, check.agrees);
  }
  return result;
}

