/**
 * Timing helpers for the benchmark page: warm-up, repeated runs, median and spread; GPU time from
 * `timestamp-query` when the device has it, wall time around `onSubmittedWorkDone` otherwise.
 */

/** One measured implementation of a workload: a flat row of the bench JSON. */
export interface Row {
  workload: string;
  implementation: string;
  n: number;
  queries: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  runs: number;
  throughput: number;
  unit: string;
  agreesWithReference: boolean | null;
  /** What was timed: 'end-to-end' (upload + dispatch + readback), 'gpu-timestamp', 'gpu-wall', 'cpu'. */
  timing: string;
  note?: string;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, runs: s.length };
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; returns wall-time statistics (ms). */
export async function timeIt(fn: () => unknown | Promise<unknown>, runs: number, warmup = 1): Promise<Stats> {
  for (let i = 0; i < warmup; i++) {
    await fn();
  }
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/**
 * Times GPU work recorded by `encode` (one compute pass given `timestampWrites` when supported).
 * Returns per-run milliseconds: timestamp differences when the device has `timestamp-query`,
 * else wall time from submit to `onSubmittedWorkDone`.
 */
export async function timeGpu(
  device: GPUDevice,
  encode: (encoder: GPUCommandEncoder, timestampWrites: GPUComputePassTimestampWrites | undefined) => Promise<void>,
  runs: number, warmup = 1,
): Promise<{ stats: Stats; timing: 'gpu-timestamp' | 'gpu-wall'; wall: Stats }> {
  const hasTs = device.features.has('timestamp-query');
  const querySet = hasTs ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
  const resolve = hasTs ? device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : undefined;
  const read = hasTs ? device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }) : undefined;
  const gpuSamples: number[] = [];
  const wallSamples: number[] = [];
  try {
    for (let i = 0; i < warmup + runs; i++) {
      const encoder = device.createCommandEncoder();
      const ts = querySet ? { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } : undefined;
      await encode(encoder, ts);
      if (querySet && resolve && read) {
        encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
        encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
      }
      const t0 = performance.now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const wall = performance.now() - t0;
      let gpu = wall;
      if (read) {
        await read.mapAsync(GPUMapMode.READ);
        const [a, b] = new BigUint64Array(read.getMappedRange());
        gpu = Number(b! - a!) / 1e6;
        read.unmap();
      }
      if (i >= warmup) {
        gpuSamples.push(gpu > 0 ? gpu : wall);
        wallSamples.push(wall);
      }
    }
  } finally {
    querySet?.destroy();
    resolve?.destroy();
    read?.destroy();
  }
  return { stats: stats(gpuSamples), timing: hasTs ? 'gpu-timestamp' : 'gpu-wall', wall: stats(wallSamples) };
}

export function row(
  workload: string, implementation: string, n: number, queries: number, s: Stats, work: number, unit: string,
  agrees: boolean | null, timing: string, note?: string,
): Row {
  const r: Row = {
    workload, implementation, n, queries,
    median_ms: round(s.median), min_ms: round(s.min), max_ms: round(s.max), runs: s.runs,
    throughput: Math.round(work / (s.median / 1000)), unit, agreesWithReference: agrees, timing,
  };
  if (note) {
    r.note = note;
  }
  return r;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
