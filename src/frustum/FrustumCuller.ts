/**
 * Frustum culling on the GPU for GPU-driven rendering: a compacted list of visible box indices
 * and drawIndexedIndirect arguments (indexCount, instanceCount = visible boxes, firstIndex,
 * baseVertex, firstInstance), left on the GPU for a render pass. Host side of
 * shaders/frustum/cull.wgsl; CPU twin: frustumCull in src/reference/frustum.ts.
 */
import type { BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import { FRUSTUM_PARAMS } from '../layout/index.ts';
import { rebasePlanes, type Plane } from '../core/frustum.ts';
import { ValidationError } from '../errors.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import { checkSet } from '../boxes/BoxSet.ts';
import { dispatch } from '../runtime/bind.ts';

/** The draw call the visible list feeds. */
export interface FrustumDraw {
  /** Indices per instance (e.g. 36 for a box of 12 triangles). */
  readonly indexCount: number;
  readonly firstIndex?: number;
  readonly baseVertex?: number;
}

/**
 * @example
 * const culler = await FrustumCuller.create(ctx, set.count);
 * const enc = device.createCommandEncoder();
 * await culler.encode(enc, set, frustumPlanes(viewProj), { indexCount: 36 });
 * // render: pass.setVertexBuffer(1, culler.visibleBuffer) … pass.drawIndexedIndirect(culler.drawArgsBuffer, 0)
 */
export class FrustumCuller {
  /** Visible box indices (u32), the first `instanceCount` of them valid. */
  readonly visibleBuffer: GPUBuffer;
  /** drawIndexedIndirect arguments: 5 u32. */
  readonly drawArgsBuffer: GPUBuffer;
  private readonly counter: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly lifetime: Lifetime;

  private constructor(readonly ctx: GpuContext, readonly capacity: number) {
    this.lifetime = new Lifetime(ctx, 'FrustumCuller', false);
    const make = (label: string, size: number, usage: number): GPUBuffer =>
      ctx.createBuffer({ label: `${ctx.label}:frustum:${label}`, size: Math.max(16, size), usage });
    const out = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    this.visibleBuffer = make('visible', capacity * 4, out | BufferUsage.VERTEX);
    this.drawArgsBuffer = make('draw-args', 20, out | BufferUsage.INDIRECT);
    this.counter = make('count', 4, out);
    this.params = make('params', FRUSTUM_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
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

  /** Records the cull and the argument write into `encoder` (planes in world space). */
  async encode(encoder: GPUCommandEncoder, set: BoxSet, planes: readonly Plane[], draw: FrustumDraw, operation = 'FrustumCuller.encode'): Promise<void> {
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    if (set.count > this.capacity) {
      throw new ValidationError('argument', undefined, 'set', `has ${set.count} boxes, more than the culler's capacity ${this.capacity}`);
    }
    if (!Array.isArray(planes) || planes.length !== 6 || !planes.every((p) => Array.isArray(p) && p.length === 4 && p.every(Number.isFinite))) {
      throw new ValidationError('argument', undefined, 'planes', 'must be six planes [nx, ny, nz, d] of finite numbers');
    }
    const bytes = new ArrayBuffer(FRUSTUM_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const i = new Int32Array(bytes);
    rebasePlanes(planes, set.origin).forEach((p, k) => f.set(p, FRUSTUM_PARAMS.PLANES / 4 + 4 * k));
    u[FRUSTUM_PARAMS.COUNT / 4] = set.count;
    u[FRUSTUM_PARAMS.INDEX_COUNT / 4] = draw.indexCount;
    u[FRUSTUM_PARAMS.FIRST_INDEX / 4] = draw.firstIndex ?? 0;
    i[FRUSTUM_PARAMS.BASE_VERTEX / 4] = draw.baseVertex ?? 0;
    const device = this.ctx.device;
    device.queue.writeBuffer(this.params, 0, bytes);
    encoder.clearBuffer(this.counter);
    const [cull, args] = await Promise.all([getKernel(device, 'frustumCull'), getKernel(device, 'frustumArgs')]);
    const pass = encoder.beginComputePass({ label: 'obb:frustum' });
    dispatch(device, pass, cull, { frustum: this.params, boxes: set.buffer, visible: this.visibleBuffer, visibleCount: this.counter }, Math.ceil(set.count / cull.workgroupSize), 'obb:frustum');
    dispatch(device, pass, args, { frustum: this.params, visibleCount: this.counter, drawArgs: this.drawArgsBuffer }, 1, 'obb:frustum-args');
    pass.end();
  }

  /** Culls now and reads back the visible indices (sorted) and the draw arguments. */
  async cull(set: BoxSet, planes: readonly Plane[], draw: FrustumDraw = { indexCount: 36 }, operation = 'frustumCull'): Promise<{ visible: Uint32Array; drawArgs: Uint32Array }> {
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
  }
}
