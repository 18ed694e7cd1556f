/**
 * A pool of GPU buffers keyed by usage and power-of-two size class. Queries borrow their upload,
 * output and staging buffers here and give them back only once the GPU is done with them (after
 * the readback of the same submission resolved), so a buffer is never reused too early. After a
 * device loss and `recover()` the pool forgets the old device's buffers, and a buffer of the old
 * device given back late is destroyed, never handed out again.
 */
import type { GpuContext } from './context.ts';

const MIN_CLASS = 256;

function sizeClass(size: number): number {
  let c = MIN_CLASS;
  while (c < size) {
    c *= 2;
  }
  return c;
}

/**
 * @example
 * const pool = new BufferPool(ctx);
 * const b = pool.acquire(1000, BufferUsage.STORAGE | BufferUsage.COPY_DST, 'rays');
 * // … submit work using b, await its completion …
 * pool.release(b);
 */
export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly sizes = new WeakMap<GPUBuffer, { key: string; device: GPUDevice }>();
  /** Bytes kept for reuse; above this, released buffers are destroyed instead. */
  maxRetainedBytes = 256 * 1024 * 1024;
  private retained = 0;

  constructor(private readonly ctx: GpuContext) {
    // The old device's buffers went with it; start empty on the new one.
    ctx.onRecover(() => {
      this.free.clear();
      this.retained = 0;
    });
  }

  /** A buffer of at least `size` bytes with exactly `usage`. */
  acquire(size: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    // Round up to a size class, unless the class would exceed a limit (a whole-buffer storage
    // binding must fit maxStorageBufferBindingSize): then the size itself, so that a size beyond
    // the limit is reported as it was asked for, not rounded.
    const limits = this.ctx.limits;
    const cap = Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize);
    const rounded = sizeClass(size);
    const cls = rounded > cap ? Math.ceil(size / 4) * 4 : rounded;
    const key = `${usage}:${cls}`;
    const list = this.free.get(key);
    const reused = list?.pop();
    if (reused) {
      this.retained -= cls;
      return reused;
    }
    const buffer = this.ctx.createBuffer({ label: `${this.ctx.label}:${label}`, size: cls, usage });
    this.sizes.set(buffer, { key, device: this.ctx.device });
    return buffer;
  }

  /** Gives a buffer back; the caller guarantees no submitted work still uses it. */
  release(buffer: GPUBuffer | undefined): void {
    if (!buffer) {
      return;
    }
    const entry = this.sizes.get(buffer);
    if (!entry || entry.device !== this.ctx.device || this.ctx.isLost || this.retained + buffer.size > this.maxRetainedBytes) {
      this.ctx.destroyBuffer(buffer);
      return;
    }
    const key = entry.key;
    const list = this.free.get(key) ?? [];
    list.push(buffer);
    this.free.set(key, list);
    this.retained += buffer.size;
  }

  /** Destroys every pooled buffer. */
  trim(): void {
    for (const list of this.free.values()) {
      for (const b of list) {
        this.ctx.destroyBuffer(b);
      }
    }
    this.free.clear();
    this.retained = 0;
  }
}
