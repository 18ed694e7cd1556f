/**
 * GPU time per query with `timestamp-query` (which ObbGpu requests when the adapter has it):
 * each labelled compute pass writes a begin and an end timestamp, the frame resolves them into
 * a buffer, and a non-blocking readback (mapAsync, never awaited by the frame) updates a
 * smoothed figure per label. Without the feature, `writes()` returns undefined and callers
 * fall back to wall time.
 */
export class GpuTimer {
  readonly supported: boolean;
  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolveBuffer: GPUBuffer | undefined;
  private readonly readBuffer: GPUBuffer | undefined;
  private readonly slots = new Map<string, number>();
  private used: string[] = [];
  private mapping = false;
  private readonly values = new Map<string, number>();
  private readonly last = new Map<string, number>();

  constructor(private readonly device: GPUDevice, labels: readonly string[]) {
    this.supported = device.features.has('timestamp-query');
    labels.forEach((l, i) => this.slots.set(l, i));
    if (this.supported) {
      const n = 2 * labels.length;
      this.querySet = device.createQuerySet({ label: 'demo:timestamps', type: 'timestamp', count: n });
      this.resolveBuffer = device.createBuffer({ label: 'demo:timestamps:resolve', size: 8 * n, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      this.readBuffer = device.createBuffer({ label: 'demo:timestamps:read', size: 8 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    }
  }

  /** Timestamp writes for one labelled compute pass this frame (undefined without the feature). */
  writes(label: string): GPUComputePassTimestampWrites | undefined {
    const slot = this.slots.get(label);
    if (!this.querySet || slot === undefined) {
      return undefined;
    }
    if (!this.used.includes(label)) {
      this.used.push(label);
    }
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * slot, endOfPassWriteIndex: 2 * slot + 1 };
  }

  /** Call after the frame's passes, before `finish()`; returns a function to call after submit. */
  resolve(encoder: GPUCommandEncoder): () => void {
    if (!this.querySet || !this.resolveBuffer || !this.readBuffer || this.used.length === 0 || this.mapping) {
      return () => undefined;
    }
    const n = 2 * this.slots.size;
    encoder.resolveQuerySet(this.querySet, 0, n, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 8 * n);
    const labels = this.used;
    this.used = [];
    this.mapping = true;
    const read = this.readBuffer;
    return () => {
      read.mapAsync(GPUMapMode.READ).then(() => {
        const t = new BigInt64Array(read.getMappedRange().slice(0));
        read.unmap();
        for (const label of labels) {
          const slot = this.slots.get(label)!;
          const ms = Number(t[2 * slot + 1]! - t[2 * slot]!) / 1e6;
          if (ms >= 0 && ms < 1e5) {
            this.record(label, ms);
          }
        }
      }, () => undefined).finally(() => {
        this.mapping = false;
      });
    };
  }

  /** Records a time measured some other way (wall clock). */
  record(label: string, ms: number): void {
    const prev = this.values.get(label);
    this.values.set(label, prev === undefined ? ms : prev * 0.8 + ms * 0.2);
    this.last.set(label, ms);
  }

  /** Smoothed milliseconds of a label, or undefined before the first measurement. */
  ms(label: string): number | undefined {
    return this.values.get(label);
  }

  /** The latest single measurement of a label. */
  lastMs(label: string): number | undefined {
    return this.last.get(label);
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    this.readBuffer?.destroy();
  }
}
