/**
 * One frame of moving instances, three ways, in the same run (workload `gpu-sourced-frame`): the
 * instances animated, their boxes made current, the tree refitted, `rays` picks and all pairs.
 * - `gpu-sourced`: the instance matrices animated on the GPU (bench/page/animate.wgsl) and a
 *   GPU-sourced set over them (`gpu.createBoxSet({ source })`): animation pass → `refresh` (the
 *   derivation, the tree's refit) → `encodeClosestHit` → `encodeAllPairs`, one encoder, one
 *   submission, nothing read back;
 * - `gpu-host-copy`: the same animation on the CPU (animateMatrix, the shader's float64 twin) into
 *   the host's boxes, `set.updateIndices` of every box (upload + scatter), `bvhOf` (the refit, its
 *   own submission), then the same two queries recorded into one encoder;
 * - `gpu-three-sync`: the animation written into a three.js InstancedMesh's `instanceMatrix`,
 *   `ThreeBoxes.sync()` (finds what moved, boxes from the matrices, `updateIndices`), then as
 *   `gpu-host-copy`. No renderer is needed: ThreeBoxes reads the instance matrices on the CPU.
 * Each frame ends at `onSubmittedWorkDone`. Then 16 more frames of each path (steady: compiled,
 * allocated, parameters written) run with every `queue.writeBuffer` and `mapAsync` counted: the
 * bytes moved between CPU and GPU per frame.
 * After the frames, each path's last frame is checked: its pair list and picks against the float64
 * reference on the boxes it holds (for `gpu-sourced`, the boxes read back with `readBack()`).
 */
import { InstancedMesh, BoxGeometry, MeshBasicMaterial, Scene } from 'three';
import { BOX_F64, type BoxArray, type GpuSourcedBoxSet, type ObbGpu, type PairListBuffers, type Vec3 } from '../../../src/index.ts';
import { compareClosestHits, comparePairLists } from '../../../src/judge/index.ts';
import { allPairsSweep } from '../../../src/reference/accel.ts';
import { HIT, HIT_GEOMETRY, packRays } from '../../../src/layout/index.ts';
import { NO_BOX } from '../../../src/constants.ts';
import type { ClosestHits } from '../../../src/core/queries.ts';
import { BufferUsage } from '../../../src/runtime/flags.ts';
import { ThreeBoxes } from '../../../src/three/index.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { sharedGpu } from '../gpu.ts';
import { makeRow, timeInterleaved } from '../measure.ts';
import animateWgsl from '../animate.wgsl?raw';

const fmt = (x: number): string => x.toLocaleString('en-US');
/** The instanced geometry's box: what every matrix maps. */
const LOCAL = { min: [-1, -0.5, -1] as [number, number, number], max: [1, 0.5, 1] as [number, number, number] };
/** Frames per path whose CPU↔GPU bytes are counted, after the timed ones: the SAH probe's 16 bytes come every 16 refits. */
const COUNTED_FRAMES = 16;
/** Area of the annulus per instance (world units²): about two overlapping pairs per box. */
const AREA_PER_BOX = 20;

/** The annulus' width for `n` instances at constant density. */
function spreadOf(n: number): number {
  return Math.sqrt(400 + (n * AREA_PER_BOX) / Math.PI) - 20;
}

/**
 * Instance i's matrix at frame f (column-major, into `out` at `at`): float64 twin of animate in
 * bench/page/animate.wgsl.
 */
export function animateMatrix(i: number, f: number, spread: number, out: Float32Array | Float64Array, at: number): void {
  const p = i % 4096;
  const a = 0.05 * f + 0.37 * p;
  const k = 1 + 0.25 * Math.sin(0.1 * f + p);
  const c = Math.cos(a);
  const s = Math.sin(a);
  const r = 20 + (spread * (Math.imul(i, 2654435761) >>> 8)) / 16777216;
  const th = 0.01 * f + 0.001 * p + (6.2831853 * (Math.imul(i, 2246822507) >>> 8)) / 16777216;
  out[at] = c * k; out[at + 1] = s * k; out[at + 2] = 0; out[at + 3] = 0;
  out[at + 4] = -s * k; out[at + 5] = c * k; out[at + 6] = 0; out[at + 7] = 0;
  out[at + 8] = 0; out[at + 9] = 0; out[at + 10] = 0.5 * k; out[at + 11] = 0;
  out[at + 12] = r * Math.cos(th); out[at + 13] = r * Math.sin(th); out[at + 14] = 0.1 * (i % 7); out[at + 15] = 1;
}

/** Instance i's box at frame f (BOX_F64 record into `data`): LOCAL through animateMatrix. */
function animateBox(i: number, f: number, spread: number, data: Float64Array, m: Float64Array): void {
  animateMatrix(i, f, spread, m, 0);
  const k = Math.hypot(m[0]!, m[1]!);
  const o = i * BOX_F64.STRIDE;
  // Local half extents (1, 0.5, 1) scaled by the columns' lengths (k, k, k / 2); axes the unit columns.
  data[o] = m[12]!; data[o + 1] = m[13]!; data[o + 2] = m[14]!;
  data[o + 3] = k; data[o + 4] = 0.5 * k; data[o + 5] = 0.5 * k;
  data[o + 6] = m[0]! / k; data[o + 7] = m[1]! / k; data[o + 8] = 0;
  data[o + 9] = m[4]! / k; data[o + 10] = m[5]! / k; data[o + 11] = 0;
  data[o + 12] = 0; data[o + 13] = 0; data[o + 14] = 1;
}

/** Bytes one queue.writeBuffer call moves. */
function writeBytes(data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number): number {
  const per = ArrayBuffer.isView(data) && 'BYTES_PER_ELEMENT' in data ? (data as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT : 1;
  const total = ArrayBuffer.isView(data) ? data.byteLength : (data as ArrayBuffer).byteLength;
  return size !== undefined ? size * per : total - (dataOffset ?? 0) * per;
}

/** Counts the bytes written (queue.writeBuffer) and mapped (mapAsync) while on; by the path named `current`. */
class TransferCounter {
  current = '';
  readonly up = new Map<string, number>();
  readonly down = new Map<string, number>();
  private restore: (() => void) | undefined;

  start(device: GPUDevice, probe: GPUBuffer): void {
    const queue = device.queue;
    const write = queue.writeBuffer;
    const proto = Object.getPrototypeOf(probe) as { mapAsync: GPUBuffer['mapAsync'] };
    const mapAsync = proto.mapAsync;
    const { up, down } = this;
    const add = (m: Map<string, number>, bytes: number): void => {
      m.set(this.current, (m.get(this.current) ?? 0) + bytes);
    };
    queue.writeBuffer = function (this: GPUQueue, buffer: GPUBuffer, offset: number, data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number): void {
      add(up, writeBytes(data, dataOffset, size));
      (write as (...a: unknown[]) => void).call(this, buffer, offset, data, dataOffset, size);
    } as GPUQueue['writeBuffer'];
    proto.mapAsync = function (this: GPUBuffer, mode: number, offset?: number, size?: number) {
      add(down, size ?? this.size - (offset ?? 0));
      return mapAsync.call(this, mode, offset, size);
    };
    this.restore = () => {
      queue.writeBuffer = write;
      proto.mapAsync = mapAsync;
    };
  }

  stop(): void {
    this.restore?.();
    this.restore = undefined;
  }
}

function unpackHits(bytes: ArrayBuffer, n: number): ClosestHits {
  const f = new Float32Array(bytes);
  const u = new Uint32Array(bytes);
  const s = HIT.SIZE / 4;
  const out = { count: n, box: new Int32Array(n), t: new Float32Array(n), face: new Uint8Array(n), inside: new Uint8Array(n) };
  for (let r = 0; r < n; r++) {
    const b = u[r * s + HIT.BOX / 4]!;
    out.box[r] = b === NO_BOX ? -1 : b;
    out.t[r] = b === NO_BOX ? Infinity : f[r * s + HIT.T / 4]!;
    out.face[r] = u[r * s + HIT.FACE / 4]! & 0xff;
    out.inside[r] = u[r * s + HIT.FLAGS / 4]! & 2 ? 1 : 0;
  }
  return out;
}

/** One path: its frame, and after the frames the boxes its queries answered for. */
interface Path {
  readonly name: string;
  readonly note: string;
  readonly list: PairListBuffers;
  readonly hits: GPUBuffer;
  /** The set's floating origin (the rays were packed relative to it). */
  readonly origin: Vec3;
  frame(): Promise<void>;
  boxes(): Promise<BoxArray>;
  destroy(): void;
}

/** Picks and all pairs recorded into `enc` for `set`, walking its tree (current: refreshed or refitted before). */
async function encodeQueries(gpu: ObbGpu, enc: GPUCommandEncoder, set: Parameters<ObbGpu['bvhOf']>[0], rays: GPUBuffer, rayCount: number, hits: GPUBuffer, geometry: GPUBuffer, list: PairListBuffers): Promise<void> {
  const tree = await gpu.bvhOf(set);
  await gpu.rays.encodeClosestHit(enc, set, rays, rayCount, hits, geometry, tree ? { tree, geometry: false } : { geometry: false });
  await gpu.pairs.encodeAllPairs(enc, set, list, tree ? { tree } : {});
}

/** `n` moving instances, one frame per path: ms per frame and bytes moved per frame. Workload `gpu-sourced-frame`. */
export async function gpuSourcedFrame(n: number, rayCount: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const gpu = await sharedGpu();
  const device = gpu.ctx.device;
  const spread = spreadOf(n);
  const made: GPUBuffer[] = [];
  const buffer = (label: string, size: number, usage: number): GPUBuffer => {
    const b = device.createBuffer({ label, size: Math.max(16, size), usage });
    made.push(b);
    return b;
  };
  // Rays from near the annulus' centre outward, uploaded once (not part of any frame).
  const rayData = new Float64Array(7 * rayCount);
  for (let k = 0; k < rayCount; k++) {
    const a = (2 * Math.PI * (k + 0.5)) / rayCount;
    rayData.set([0, 0, 0.05 + 0.5 * ((k * 0.618034) % 1), Math.cos(a), Math.sin(a), 0.01 * (((k * 0.7548776) % 1) - 0.5), Infinity], 7 * k);
  }
  const rays = { count: rayCount, data: rayData };
  /** The rays packed relative to a set's floating origin, on the GPU (before any frame). */
  const raysAt = (origin: Vec3, label: string): GPUBuffer => {
    const packed = new Uint8Array(packRays(rays, origin));
    const b = buffer(label, packed.byteLength, BufferUsage.STORAGE | BufferUsage.COPY_DST);
    device.queue.writeBuffer(b, 0, packed);
    return b;
  };
  // Bound but not written (geometry: false): one HitGeometry record, the binding's least size.
  const geometry = buffer('bench:geometry', HIT_GEOMETRY.SIZE, BufferUsage.STORAGE);
  const listCapacity = 4 * n;
  const listOptions = { candidateCapacity: 8 * n };
  const paths: Path[] = [];
  try {
    // GPU-sourced: matrices animated on the GPU, boxes derived from them.
    {
      const matrices = buffer('bench:matrices', 64 * n, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST);
      const frame = buffer('bench:frame', 16, BufferUsage.STORAGE);
      const sceneParams = buffer('bench:scene', 16, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
      const words = new ArrayBuffer(16);
      new Uint32Array(words)[0] = n;
      new Float32Array(words)[1] = spread;
      device.queue.writeBuffer(sceneParams, 0, words);
      const module = device.createShaderModule({ label: 'bench/page/animate.wgsl', code: animateWgsl });
      const animate = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'animate' } });
      const tick = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'tick' } });
      const animateGroup = device.createBindGroup({
        layout: animate.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: frame } }, { binding: 1, resource: { buffer: matrices } }, { binding: 2, resource: { buffer: sceneParams } }],
      });
      const tickGroup = device.createBindGroup({ layout: tick.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: frame } }] });
      const set: GpuSourcedBoxSet = gpu.createBoxSet({ source: { buffer: matrices, layout: 'mat4x4f', count: n, localBox: LOCAL }, origin: [0, 0, 0], label: 'bench:sourced' });
      const list = gpu.createPairList(listCapacity, { ...listOptions, label: 'bench:sourced-pairs' });
      const hits = buffer('bench:sourced-hits', rayCount * HIT.SIZE, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
      const rayBuffer = raysAt(set.origin, 'bench:sourced-rays');
      const groups = Math.ceil(n / 64);
      paths.push({
        name: 'gpu-sourced', list, hits, origin: set.origin,
        note: 'animation pass on the GPU → refresh (derive + refit) → encodeClosestHit → encodeAllPairs, one submission, no readback',
        async frame() {
          const enc = device.createCommandEncoder({ label: 'bench:sourced-frame' });
          const pass = enc.beginComputePass({ label: 'bench:animate' });
          pass.setPipeline(animate);
          pass.setBindGroup(0, animateGroup);
          pass.dispatchWorkgroups(Math.min(groups, 65535), Math.ceil(groups / 65535));
          pass.setPipeline(tick);
          pass.setBindGroup(0, tickGroup);
          pass.dispatchWorkgroups(1);
          pass.end();
          await set.refresh(enc);
          await encodeQueries(gpu, enc, set, rayBuffer, rayCount, hits, geometry, list);
          device.queue.submit([enc.finish()]);
          await device.queue.onSubmittedWorkDone();
        },
        async boxes() {
          return (await set.readBack()).gpu.boxes;
        },
        destroy() {
          set.destroy();
          list.destroy();
        },
      });
    }
    // Host copy: the same animation on the CPU, every box uploaded with updateIndices.
    {
      const data = new Float64Array(n * BOX_F64.STRIDE);
      const m = new Float64Array(16);
      for (let i = 0; i < n; i++) {
        animateBox(i, 0, spread, data, m);
      }
      const host = { count: n, data };
      const set = gpu.createBoxSet(host, { label: 'bench:host-copy' });
      const rayBuffer = raysAt(set.origin, 'bench:host-rays');
      const all = Uint32Array.from({ length: n }, (_, i) => i);
      const list = gpu.createPairList(listCapacity, { ...listOptions, label: 'bench:host-pairs' });
      const hits = buffer('bench:host-hits', rayCount * HIT.SIZE, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
      let f = 0;
      paths.push({
        name: 'gpu-host-copy', list, hits, origin: set.origin,
        note: 'animation on the CPU → updateIndices of every box → bvhOf (refit, own submission) → encodeClosestHit → encodeAllPairs, one submission',
        async frame() {
          f++;
          for (let i = 0; i < n; i++) {
            animateBox(i, f, spread, data, m);
          }
          await set.updateIndices(all, host);
          const enc = device.createCommandEncoder({ label: 'bench:host-frame' });
          await encodeQueries(gpu, enc, set, rayBuffer, rayCount, hits, geometry, list);
          device.queue.submit([enc.finish()]);
          await device.queue.onSubmittedWorkDone();
        },
        async boxes() {
          return set.boxes;
        },
        destroy() {
          set.destroy();
          list.destroy();
        },
      });
    }
    // three.js: the animation into an InstancedMesh, ThreeBoxes.sync() (no renderer needed).
    {
      const mesh = new InstancedMesh(new BoxGeometry(2, 1, 2), new MeshBasicMaterial(), n);
      const matrices = mesh.instanceMatrix.array as Float32Array;
      for (let i = 0; i < n; i++) {
        animateMatrix(i, 0, spread, matrices, 16 * i);
      }
      const scene = new Scene();
      scene.add(mesh);
      scene.updateMatrixWorld(true);
      const three = await ThreeBoxes.create(gpu, [mesh]);
      const rayBuffer = raysAt(three.set.origin, 'bench:three-rays');
      const list = gpu.createPairList(listCapacity, { ...listOptions, label: 'bench:three-pairs' });
      const hits = buffer('bench:three-hits', rayCount * HIT.SIZE, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
      let f = 0;
      paths.push({
        name: 'gpu-three-sync', list, hits, origin: three.set.origin,
        note: 'animation on the CPU into InstancedMesh.instanceMatrix → ThreeBoxes.sync() (every instance moved: updateIndices) → bvhOf → encodeClosestHit → encodeAllPairs, one submission',
        async frame() {
          f++;
          for (let i = 0; i < n; i++) {
            animateMatrix(i, f, spread, matrices, 16 * i);
          }
          mesh.instanceMatrix.needsUpdate = true;
          await three.sync();
          const enc = device.createCommandEncoder({ label: 'bench:three-frame' });
          await encodeQueries(gpu, enc, three.set, rayBuffer, rayCount, hits, geometry, list);
          device.queue.submit([enc.finish()]);
          await device.queue.onSubmittedWorkDone();
        },
        async boxes() {
          return three.set.boxes;
        },
        destroy() {
          three.destroy();
          list.destroy();
        },
      });
    }
    const stats = await timeInterleaved(paths.map((p) => () => p.frame()), cfg.budget);
    // The bytes of steady frames (after the timed ones: compiled, allocated, parameters written),
    // COUNTED_FRAMES per path.
    const counter = new TransferCounter();
    counter.start(device, geometry);
    try {
      for (const p of paths) {
        counter.current = p.name;
        for (let f = 0; f < COUNTED_FRAMES; f++) {
          await p.frame();
        }
      }
    } finally {
      counter.stop();
    }
    for (const [k, p] of paths.entries()) {
      const boxes = await p.boxes();
      const { pairs, status } = await p.list.read();
      // Past 16 pairs a box the scene is not the one meant (the reference would run out of memory).
      let ref: Uint32Array;
      try {
        ref = allPairsSweep(boxes, { maxPairs: 16 * n });
      } catch (error) {
        out.notes.push(`gpu-sourced-frame n=${fmt(n)} ${p.name}: no reference (${String(error)}); the list holds ${fmt(status.count)} pairs (overflow ${status.overflow}); first box ${Array.from(boxes.data.subarray(0, 15), (x) => x.toPrecision(4)).join(' ')}`);
        continue;
      }
      const pairCmp = comparePairLists({ a: boxes, origin: p.origin }, pairs, ref);
      const closest = unpackHits(await gpu.ctx.readback(p.hits, rayCount * HIT.SIZE), rayCount);
      const hitCmp = compareClosestHits({ boxes, rays, origin: p.origin }, closest);
      const agrees = status.overflow === 0 && pairCmp.mismatch === 0 && hitCmp.mismatch === 0;
      if (!agrees) {
        out.notes.push(`gpu-sourced-frame n=${fmt(n)} ${p.name}: overflow ${status.overflow}, pairs ${pairCmp.mismatch} mismatches, picks ${hitCmp.mismatch} mismatches`);
      }
      const frames = COUNTED_FRAMES;
      const up = Math.round((counter.up.get(p.name) ?? 0) / frames);
      const down = Math.round((counter.down.get(p.name) ?? 0) / frames);
      const row = makeRow({
        workload: 'gpu-sourced-frame', implementation: p.name, n, queries: rayCount, stats: stats[k]!, work: 1, unit: 'frames/s', agrees,
        timing: 'end-to-end',
        check: { checked: pairCmp.total + hitCmp.total, ambiguous: pairCmp.ambiguous + hitCmp.ambiguous, mismatch: pairCmp.mismatch + hitCmp.mismatch, reasons: '' },
        note: `${fmt(status.count)} overlapping pairs and ${fmt(rayCount)} picks in the checked frame; CPU↔GPU per frame: ${fmt(up)} B written, ${fmt(down)} B mapped (mean of ${frames} steady frames); ${p.note}`,
      });
      row.upload_bytes_per_frame = up;
      row.readback_bytes_per_frame = down;
      out.rows.push(row);
    }
  } finally {
    paths.forEach((p) => p.destroy());
    made.forEach((b) => b.destroy());
  }
  return out;
}
