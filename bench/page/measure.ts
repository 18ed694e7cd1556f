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
  /**
   * What was timed: 'end-to-end' (upload + dispatch + readback), 'gpu-timestamp' (kernel, from
   * timestamp queries), 'gpu-wall' (submit to onSubmittedWorkDone), 'cpu' (a JS or WASM call).
   */
  timing: string;
  /** Cases compared with the reference (a slice of the rays, every pair), and how they came out. */
  checked?: number;
  ambiguous?: number;
  mismatch?: number;
  /** Ambiguous and mismatch counts by reason, e.g. "closest-tie 2, grazing-edge 1". */
  reasons?: string;
  /** Kernel rows timed by timestamp queries: the median wall time from submit to onSubmittedWorkDone. */
  wall_median_ms?: number;
  /**
   * Tree rows: its quality in hardware-independent counts (src/tree/quality.ts): SAH cost (unit
   * costs), and per picking ray the internal nodes the closest-hit walk visits and the boxes it tests.
   */
  sah?: number;
  nodes_per_ray?: number;
  box_tests_per_ray?: number;
  /**
   * Frame rows (gpu-sourced-frame): bytes moved between CPU and GPU per frame, counted by wrapping
   * queue.writeBuffer (up) and mapAsync (down) during the timed frames.
   */
  upload_bytes_per_frame?: number;
  readback_bytes_per_frame?: number;
  note?: string;
}

/** How long to measure: at least `minRuns`, more until `budgetMs` is spent, at most `maxRuns`. */
export interface RunBudget {
  readonly minRuns: number;
  readonly maxRuns: number;
  readonly budgetMs: number;
  readonly warmup: number;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  /** Samples measured. */
  runs: number;
  /** Calls averaged in each sample (absent = 1). */
  reps?: number;
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, runs: s.length };
}

/** Samples shorter than this are averaged over several calls (browsers coarsen performance.now()). */
export const MIN_SAMPLE_MS = 5;
const MAX_REPS = 1000;

/** Warm-up doubling as calibration: how many calls of `fn` make one sample of MIN_SAMPLE_MS. */
async function calibrate(fn: () => unknown | Promise<unknown>, warmup: number): Promise<number> {
  const c0 = performance.now();
  let calls = 0;
  do {
    await fn();
    calls++;
  } while (calls < warmup || (performance.now() - c0 < MIN_SAMPLE_MS && calls < MAX_REPS));
  const per = (performance.now() - c0) / calls;
  return per < MIN_SAMPLE_MS ? Math.min(MAX_REPS, Math.ceil(MIN_SAMPLE_MS / Math.max(per, 1e-3))) : 1;
}

/**
 * Times several competitors in turn, one sample each per round, so that a change in the machine's
 * load during the measurement (other processes, thermal limits) falls on all of them alike
 * instead of on whichever ran at that moment. Each gets `budget.warmup` unmeasured calls, then at
 * least `minRuns` samples and more until it has spent `budgetMs` (at most `maxRuns`). Calls
 * faster than {@link MIN_SAMPLE_MS} (a single castRay, say) are repeated within each sample and
 * averaged (`reps` in the result): Chromium's timer resolution is 0.1 ms.
 */
export async function timeInterleaved(fns: readonly (() => unknown | Promise<unknown>)[], budget: RunBudget): Promise<Stats[]> {
  const reps: number[] = [];
  for (const fn of fns) {
    reps.push(await calibrate(fn, budget.warmup));
  }
  const samples: number[][] = fns.map(() => []);
  const spent = fns.map(() => 0);
  const done = (i: number): boolean =>
    samples[i]!.length >= budget.minRuns && (spent[i]! >= budget.budgetMs || samples[i]!.length >= budget.maxRuns);
  while (!fns.every((_, i) => done(i))) {
    for (let i = 0; i < fns.length; i++) {
      if (done(i)) {
        continue;
      }
      const t0 = performance.now();
      for (let k = 0; k < reps[i]!; k++) {
        await fns[i]!();
      }
      const dt = performance.now() - t0;
      samples[i]!.push(dt / reps[i]!);
      spent[i]! += dt;
    }
  }
  return samples.map((x, i) => (reps[i]! > 1 ? { ...stats(x), reps: reps[i]! } : stats(x)));
}

/** {@link timeInterleaved} for one function. */
export async function timeBudget(fn: () => unknown | Promise<unknown>, budget: RunBudget): Promise<Stats> {
  return (await timeInterleaved([fn], budget))[0]!;
}

/**
 * Frames for several competitors, interleaved: round r (warm-up rounds included) builds its input
 * once with the untimed `setup(r)` (the boxes of frame r + 1, say) and times each competitor that
 * still needs samples on it. Returns per competitor its statistics and its result in the first
 * measured round (all competitors saw the same input there).
 */
export async function timeRoundsInterleaved<S, R>(
  setup: (round: number) => S, fns: readonly ((input: S) => Promise<R>)[], budget: RunBudget,
): Promise<{ stats: Stats[]; firstMeasured: S; results: R[] }> {
  const samples: number[][] = fns.map(() => []);
  const spent = fns.map(() => 0);
  const results: R[] = [];
  let firstMeasured: S | undefined;
  const done = (i: number): boolean =>
    samples[i]!.length >= budget.minRuns && (spent[i]! >= budget.budgetMs || samples[i]!.length >= budget.maxRuns);
  for (let round = 0; !fns.every((_, i) => done(i)); round++) {
    const input = setup(round);
    const measured = round >= budget.warmup;
    if (round === budget.warmup) {
      firstMeasured = input;
    }
    for (let i = 0; i < fns.length; i++) {
      if (measured && done(i)) {
        continue;
      }
      const t0 = performance.now();
      const out = await fns[i]!(input);
      const dt = performance.now() - t0;
      if (measured) {
        if (round === budget.warmup) {
          results[i] = out;
        }
        samples[i]!.push(dt);
        spent[i]! += dt;
      }
    }
  }
  return { stats: samples.map(stats), firstMeasured: firstMeasured as S, results };
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
): Promise<{ stats: Stats; timing: 'gpu-timestamp' | 'gpu-wall'; wall: Stats; samples: number[]; wallSamples: number[] }> {
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
  return {
    stats: stats(gpuSamples), timing: hasTs ? 'gpu-timestamp' : 'gpu-wall', wall: stats(wallSamples),
    samples: gpuSamples, wallSamples,
  };
}

/** What a row is made of; `work` is the amount `throughput` counts (rays, tests, pairs, MB…). */
export interface RowSpec {
  workload: string;
  implementation: string;
  n: number;
  queries: number;
  stats: Stats;
  work: number;
  unit: string;
  agrees: boolean | null;
  timing: string;
  check?: CheckSummary;
  /** Kernel rows: median wall time from submit to onSubmittedWorkDone. */
  wallMedian?: number;
  note?: string;
}

/** The outcome of comparing an implementation's answers with the reference. */
export interface CheckSummary {
  checked: number;
  ambiguous: number;
  mismatch: number;
  reasons: string;
}

/** A flat bench row from measured statistics. */
export function makeRow(spec: RowSpec): Row {
  const s = spec.stats;
  const r: Row = {
    workload: spec.workload, implementation: spec.implementation, n: spec.n, queries: spec.queries,
    median_ms: round(s.median), min_ms: round(s.min), max_ms: round(s.max), runs: s.runs,
    throughput: spec.work / (Math.max(s.median, 1e-6) / 1000), unit: spec.unit, agreesWithReference: spec.agrees,
    timing: spec.timing,
  };
  r.throughput = Number(r.throughput.toPrecision(6));
  if (spec.check) {
    r.checked = spec.check.checked;
    r.ambiguous = spec.check.ambiguous;
    r.mismatch = spec.check.mismatch;
    r.reasons = spec.check.reasons;
  }
  if (spec.wallMedian !== undefined) {
    r.wall_median_ms = round(spec.wallMedian);
  }
  const note = [spec.note, s.reps ? `each sample averages ${s.reps} calls` : ''].filter(Boolean).join('; ');
  if (note) {
    r.note = note;
  }
  return r;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
