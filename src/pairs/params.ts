/**
 * The PairParams uniform every box–box kernel reads (shaders/common/types.wgsl), written into a
 * pooled buffer.
 */
import { PAIR_PARAMS } from '../layout/index.ts';
import { BufferUsage } from '../runtime/flags.ts';
import type { BufferPool } from '../runtime/pool.ts';

/** The fields of PairParams. */
export interface PairParamsFields {
  /** B's floating origin minus A's (B's boxes are moved into A's frame by it). */
  readonly offsetB?: readonly number[];
  readonly tolerance: number;
  readonly countA: number;
  readonly countB: number;
  /** Listed pairs, or the broad phases' candidate-list capacity. */
  readonly pairCount: number;
  readonly flags: number;
  /** Capacity of the appended pair list. */
  readonly capacity: number;
}

/** The bytes of PairParams `p`. */
export function pairParamsBytes(p: PairParamsFields): ArrayBuffer {
  const bytes = new ArrayBuffer(PAIR_PARAMS.SIZE);
  const f = new Float32Array(bytes);
  const u = new Uint32Array(bytes);
  const off = p.offsetB ?? [0, 0, 0];
  f[PAIR_PARAMS.OFFSET_B / 4] = off[0]!;
  f[PAIR_PARAMS.OFFSET_B / 4 + 1] = off[1]!;
  f[PAIR_PARAMS.OFFSET_B / 4 + 2] = off[2]!;
  f[PAIR_PARAMS.TOLERANCE / 4] = p.tolerance;
  u[PAIR_PARAMS.COUNT_A / 4] = p.countA;
  u[PAIR_PARAMS.COUNT_B / 4] = p.countB;
  u[PAIR_PARAMS.PAIR_COUNT / 4] = p.pairCount;
  u[PAIR_PARAMS.FLAGS / 4] = p.flags;
  u[PAIR_PARAMS.CAPACITY / 4] = p.capacity;
  return bytes;
}

/** A pooled uniform buffer holding `p` (release it to `pool` when the GPU is done). */
export function pairParams(pool: BufferPool, device: GPUDevice, p: PairParamsFields): GPUBuffer {
  const bytes = pairParamsBytes(p);
  const buffer = pool.acquire(PAIR_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST, 'pairs:params');
  device.queue.writeBuffer(buffer, 0, bytes);
  return buffer;
}
