/**
 * Frustum culling on the GPU for GPU-driven rendering: a compacted list of visible box indices
 * and drawIndexedIndirect arguments (indexCount, instanceCount = visible boxes, firstIndex,
 * baseVertex, firstInstance), left on the GPU for a render pass. Two tests: the plane test
 * (default; conservative: it keeps every box that meets the frustum, and also boxes just outside
 * its edges and corners that no single plane separates, which is what drawing needs), and
 * `exact: true` (the plane test, then the OBB–frustum separating-axis test on the boxes it
 * keeps across a plane, compacted into a list and tested by a second, indirect dispatch: a box is
 * kept exactly when it meets the frustum, as a selection needs). Host side of
 * shaders/frustum/cull.wgsl; CPU twin: frustumCull in src/reference/frustum.ts.
 */
import type { BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import { FRUSTUM_PARAMS } from '../layout/index.ts';
import { rebasePlanes, type Plane } from '../core/frustum.ts';
import { frustumShape } from '../reference/frustum.ts';
import { FRUSTUM_SHAPE_VEC4 } from '../constants.ts';
import { ValidationError } from '../errors.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import { checkSet } from '../boxes/BoxSet.ts';
import { dispatch, dispatchIndirect } from '../runtime/bind.ts';

/** The draw call the visible list feeds, and which test culls. */
export interface FrustumDraw {
  /** Indices per instance (e.g. 36 for a box of 12 triangles). */
  readonly indexCount: number;
  readonly firstIndex?: number;
  readonly baseVertex?: number;
  /**
   * Keep exactly the boxes that meet the frustum (default false: the conservative plane test,
   * which also keeps boxes just outside the frustum's edges and corners — up to about a box's
   * size beyond them, more beside a narrow frustum's edges). Exact runs the plane test first and the separating-axis test only on the boxes
   * it keeps across a plane; it needs six planes in frustumPlanes's order (left, right, bottom,
   * top, near, far) that bound a frustum, else a ValidationError names `planes`.
   */
  readonly exact?: boolean;
}

/**
 * Planes a pass of the caller's computed on the GPU (a camera animated on the GPU): six vec4f
 * (nx, ny, nz, d; n pointing into the frustum, as frustumPlanes gives them) in the set's
 * floating-origin frame (world planes moved by rebasePlanes(planes, set.origin); the same as world
 * planes while the origin is [0, 0, 0]), 96 bytes from `offset`. The buffer needs COPY_SRC: the
 * encode copies the planes into the culler's parameters inside the caller's encoder, so nothing
 * is uploaded for them.
 */
export interface GpuPlanes {
  readonly buffer: GPUBuffer;
  /** Bytes before plane 0 (a multiple of 4; default 0). */
  readonly offset?: number;
}

function isGpuPlanes(planes: unknown): planes is GpuPlanes {
  const b = (planes as GpuPlanes | null)?.buffer;
  return typeof planes === 'object' && planes !== null && !Array.isArray(planes) && typeof b === 'object' && b !== null && typeof b.size === 'number';
}

/**
 * @example
 * const culler = await FrustumCuller.create(ctx, set.count);
 * const enc = device.createCommandEncoder();
 * await culler.encode(enc, set, frustumPlanes(viewProj), { indexCount: 36 });
 * // render: pass.setVertexBuffer(1, culler.visibleBuffer) … pass.drawIndexedIndirect(culler.drawArgsBuffer, 0)
 * const { visible } = await culler.cull(set, frustumPlanes(viewProj), { indexCount: 36, exact: true }); // a selection
 */
export class FrustumCuller {
  /** Visible box indices (u32), the first `instanceCount` of them valid. */
  readonly visibleBuffer: GPUBuffer;
  /** drawIndexedIndirect arguments: 5 u32. */
  readonly drawArgsBuffer: GPUBuffer;
  private readonly counter: GPUBuffer;
  private readonly params: GPUBuffer;
  /**
   * The exact test's buffers, made at its first use: the frustum's shape (corners, edge
   * directions, edge count: frustumShape in cull.wgsl), the candidates the plane stage leaves to
   * the separating-axis test, their count, and that test's indirect dispatch arguments.
   */
  private exactBuffers: { readonly shape: GPUBuffer; readonly candidates: GPUBuffer; readonly count: GPUBuffer; readonly args: GPUBuffer } | undefined;
  private readonly lifetime: Lifetime;
  /** The parameters as last written: their last 16 bytes, and the planes (undefined after a copy from a GPU buffer). */
  private writtenTail: Uint32Array | undefined;
  private writtenPlanes: Uint32Array | undefined;

  private constructor(readonly ctx: GpuContext, readonly capacity: number) {
    this.lifetime = new Lifetime(ctx, 'FrustumCuller', false);
    const out = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.visibleBuffer = this.make('visible', capacity * 4, out | BufferUsage.VERTEX);
    this.drawArgsBuffer = this.make('draw-args', 20, out | BufferUsage.INDIRECT);
    this.counter = this.make('count', 4, out);
    this.params = this.make('params', FRUSTUM_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  private make(label: string, size: number, usage: number): GPUBuffer {
    return this.ctx.createBuffer({ label: `${this.ctx.label}:frustum:${label}`, size: Math.max(16, size), usage });
  }

  private exact(): NonNullable<FrustumCuller['exactBuffers']> {
    const out = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.exactBuffers ??= {
      shape: this.make('shape', FRUSTUM_SHAPE_VEC4 * 16, BufferUsage.UNIFORM | BufferUsage.COPY_DST),
      candidates: this.make('candidates', this.capacity * 4, out),
      count: this.make('candidate-count', 4, out),
      args: this.make('exact-args', 12, out | BufferUsage.INDIRECT),
    };
    return this.exactBuffers;
  }

  /**
   * A culler for sets of up to `capacity` boxes (a positive integer whose visible list fits one
   * storage binding: CapacityError otherwise, before anything is allocated).
   */
  static async create(ctx: GpuContext, capacity: number): Promise<FrustumCuller> {
    if (!(Number.isInteger(capacity) && capacity >= 1)) {
      throw new ValidationError('argument', undefined, 'capacity', `must be a positive integer (got ${String(capacity)})`);
    }
    ctx.assertBindingFits('frustum culler visible list', capacity * 4, `${capacity} boxes × 4 bytes`);
    await Promise.all([getKernel(ctx.device, 'frustumCull'), getKernel(ctx.device, 'frustumArgs')]);
    return new FrustumCuller(ctx, capacity);
  }

  /** Throws StaleObjectError when this culler was destroyed or its device replaced. */
  assertUsable(operation: string): void {
    this.lifetime.assertUsable(operation);
  }

  /**
   * Records the cull and the argument write into `encoder`: planes in world space (uploaded, 96
   * bytes, when they differ from the last encode's), or `{ buffer, offset }` holding them on the
   * GPU in the set's frame (copied inside the encoder: nothing uploaded; not with `draw.exact`,
   * whose frustum shape is computed from the planes in float64 on the host). The other 16 bytes
   * of parameters (box count, draw fields) are written only when they change.
   */
  async encode(encoder: GPUCommandEncoder, set: BoxSet, planes: readonly Plane[] | GpuPlanes, draw: FrustumDraw, operation = 'FrustumCuller.encode'): Promise<void> {
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    if (set.count > this.capacity) {
      throw new ValidationError('argument', undefined, 'set', `has ${set.count} boxes, more than the culler's capacity ${this.capacity}`);
    }
    const onGpu = isGpuPlanes(planes) ? planes : undefined;
    const planeOffset = onGpu?.offset ?? 0;
    if (onGpu) {
      if (!Number.isInteger(planeOffset) || planeOffset < 0 || planeOffset % 4 !== 0 || planeOffset + 96 > onGpu.buffer.size) {
        throw new ValidationError('argument', undefined, 'planes.offset', `must be a multiple of 4 with 96 bytes of planes after it in the ${onGpu.buffer.size}-byte buffer (got ${String(planeOffset)})`);
      }
      if ((onGpu.buffer.usage & BufferUsage.COPY_SRC) === 0) {
        throw new ValidationError('argument', undefined, 'planes.buffer', 'needs GPUBufferUsage.COPY_SRC (the planes are copied into the culler\'s parameters)');
      }
      if (draw.exact) {
        throw new ValidationError('argument', undefined, 'draw.exact', 'needs planes on the host (the frustum\'s shape is computed from them in float64); give the planes as numbers, or cull with the plane test');
      }
    } else if (!Array.isArray(planes) || planes.length !== 6 || !planes.every((p) => Array.isArray(p) && p.length === 4 && p.every(Number.isFinite))) {
      throw new ValidationError('argument', undefined, 'planes', 'must be six planes [nx, ny, nz, d] of finite numbers, or { buffer, offset? } holding them on the GPU');
    }
    const hostPlanes = onGpu ? undefined : planes as readonly Plane[];
    // The exact test's shape, from the world planes in float64 (validated before anything is written).
    const shape = draw.exact && hostPlanes ? frustumShape(hostPlanes) : undefined;
    const bytes = new ArrayBuffer(FRUSTUM_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const i = new Int32Array(bytes);
    if (hostPlanes) {
      rebasePlanes(hostPlanes, set.origin).forEach((p, k) => f.set(p, FRUSTUM_PARAMS.PLANES / 4 + 4 * k));
    }
    u[FRUSTUM_PARAMS.COUNT / 4] = set.count;
    u[FRUSTUM_PARAMS.INDEX_COUNT / 4] = draw.indexCount;
    u[FRUSTUM_PARAMS.FIRST_INDEX / 4] = draw.firstIndex ?? 0;
    i[FRUSTUM_PARAMS.BASE_VERTEX / 4] = draw.baseVertex ?? 0;
    const device = this.ctx.device;
    this.writeParams(u, encoder, onGpu, planeOffset);
    const exact = shape ? this.exact() : undefined;
    if (shape && exact) {
      // Corners moved into the set's floating-origin frame in float64, then rounded once.
      const s = new Float32Array(FRUSTUM_SHAPE_VEC4 * 4);
      for (let j = 0; j < 8; j++) {
        for (let k = 0; k < 3; k++) {
          s[4 * j + k] = shape.corners[3 * j + k]! - set.origin[k]!;
        }
      }
      for (let m = 0; m < shape.edgeCount; m++) {
        s.set(shape.edges.subarray(3 * m, 3 * m + 3), 4 * (8 + m));
      }
      s[4 * (FRUSTUM_SHAPE_VEC4 - 1)] = shape.edgeCount;
      device.queue.writeBuffer(exact.shape, 0, s);
    }
    encoder.clearBuffer(this.counter);
    const common = { frustum: this.params, boxes: set.buffer, visible: this.visibleBuffer, visibleCount: this.counter };
    const args = await getKernel(device, 'frustumArgs');
    if (exact) {
      // The plane stage, then the separating axes over the boxes it left (an indirect dispatch).
      const [planeStage, satArgs, sat] = await Promise.all([getKernel(device, 'frustumCullExact'), getKernel(device, 'frustumExactArgs'), getKernel(device, 'frustumExactSat')]);
      encoder.clearBuffer(exact.count);
      const pass = encoder.beginComputePass({ label: 'obb:frustum-exact' });
      const list = { candidates: exact.candidates, candidateCount: exact.count };
      dispatch(device, pass, planeStage, { ...common, ...list }, Math.ceil(set.count / planeStage.workgroupSize), 'obb:frustum-exact');
      dispatch(device, pass, satArgs, { candidateCount: exact.count, exactArgs: exact.args }, 1, 'obb:frustum-exact-args');
      dispatchIndirect(device, pass, sat, { ...common, ...list, frustumShape: exact.shape }, exact.args, 0, 'obb:frustum-exact-sat');
      dispatch(device, pass, args, { frustum: this.params, visibleCount: this.counter, drawArgs: this.drawArgsBuffer }, 1, 'obb:frustum-args');
      pass.end();
      return;
    }
    const cull = await getKernel(device, 'frustumCull');
    const pass = encoder.beginComputePass({ label: 'obb:frustum' });
    dispatch(device, pass, cull, common, Math.ceil(set.count / cull.workgroupSize), 'obb:frustum');
    dispatch(device, pass, args, { frustum: this.params, visibleCount: this.counter, drawArgs: this.drawArgsBuffer }, 1, 'obb:frustum-args');
    pass.end();
  }

  /**
   * Writes what changed of the parameters: the planes (host planes that differ from the last
   * written; GPU planes are copied inside the encoder, every encode) and the last 16 bytes.
   */
  private writeParams(words: Uint32Array, encoder: GPUCommandEncoder, onGpu: GpuPlanes | undefined, planeOffset: number): void {
    const queue = this.ctx.device.queue;
    const split = FRUSTUM_PARAMS.COUNT / 4;
    const planes = words.slice(0, split);
    const tail = words.slice(split);
    const same = (a: Uint32Array | undefined, b: Uint32Array): boolean => a !== undefined && a.every((w, k) => w === b[k]);
    if (!same(this.writtenTail, tail)) {
      queue.writeBuffer(this.params, FRUSTUM_PARAMS.COUNT, tail);
      this.writtenTail = tail;
    }
    if (onGpu) {
      encoder.copyBufferToBuffer(onGpu.buffer, planeOffset, this.params, FRUSTUM_PARAMS.PLANES, 96);
      this.writtenPlanes = undefined;
    } else if (!same(this.writtenPlanes, planes)) {
      queue.writeBuffer(this.params, FRUSTUM_PARAMS.PLANES, planes);
      this.writtenPlanes = planes;
    }
  }

  /** Culls now (`draw.exact`: the exact test) and reads back the visible indices (sorted) and the draw arguments. */
  async cull(set: BoxSet, planes: readonly Plane[] | GpuPlanes, draw: FrustumDraw = { indexCount: 36 }, operation = 'frustumCull'): Promise<{ visible: Uint32Array; drawArgs: Uint32Array }> {
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    await this.ctx.sequence(operation, async () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'obb:frustum' });
      await this.encode(encoder, set, planes, draw, operation);
      await this.ctx.scoped(`frustum cull (${set.count} boxes)`, () => this.ctx.device.queue.submit([encoder.finish()]));
    });
    const args = new Uint32Array(await this.ctx.readback(this.drawArgsBuffer, 20, 0, operation));
    const visible = new Uint32Array(await this.ctx.readback(this.visibleBuffer, args[1]! * 4, 0, operation));
    return { visible: visible.sort(), drawArgs: args };
  }

  /** Runs `hook` once when this culler is destroyed (its owner forgets it then). */
  onDestroy(hook: () => void): () => void {
    return this.lifetime.onDestroy(hook);
  }

  /** Frees the culler's buffers (idempotent). */
  destroy(): void {
    if (!this.lifetime.end()) {
      return;
    }
    for (const b of [this.visibleBuffer, this.drawArgsBuffer, this.counter, this.params]) {
      this.ctx.destroyBuffer(b);
    }
    if (this.exactBuffers) {
      const { shape, candidates, count, args } = this.exactBuffers;
      for (const b of [shape, candidates, count, args]) {
        this.ctx.destroyBuffer(b);
      }
      this.exactBuffers = undefined;
    }
  }
}
