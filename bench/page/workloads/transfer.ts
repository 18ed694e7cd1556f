/**
 * Upload and readback cost per MB: `queue.writeBuffer` until `onSubmittedWorkDone`, and
 * copy → `mapAsync` → copy out → unmap (the library's one readback path). Workloads `upload` and
 * `readback`, n = megabytes.
 */
import type { BenchConfig, SuiteResult } from '../config.ts';
import { sharedGpu } from '../gpu.ts';
import { makeRow, timeBudget } from '../measure.ts';

const MB = 1 << 20;

export async function transfer(sizesMB: readonly number[], cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  if (cfg.implementations && !cfg.implementations.some((n) => n.startsWith('gpu'))) {
    return out;
  }
  const device = (await sharedGpu()).ctx.device;
  const readbacks: typeof out.rows = [];
  for (const mb of sizesMB) {
    const size = mb * MB;
    const data = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) {
      data[i] = i & 0xff;
    }
    const gpuBuf = device.createBuffer({ label: 'bench:transfer', size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    const staging = device.createBuffer({ label: 'bench:staging', size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    try {
      const up = await timeBudget(async () => {
        device.queue.writeBuffer(gpuBuf, 0, data);
        await device.queue.onSubmittedWorkDone();
      }, cfg.budget);
      let copy: Uint8Array | undefined;
      const down = await timeBudget(async () => {
        const enc = device.createCommandEncoder();
        enc.copyBufferToBuffer(gpuBuf, 0, staging, 0, size);
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        copy = new Uint8Array(staging.getMappedRange().slice(0));
        staging.unmap();
      }, cfg.budget);
      const agrees = copy !== undefined && copy[4096] === data[4096] && copy[size - 4096] === data[size - 4096];
      for (const [workload, s, what] of [['upload', up, 'writeBuffer + onSubmittedWorkDone'], ['readback', down, 'copy + mapAsync + copy out + unmap']] as const) {
        (workload === 'upload' ? out.rows : readbacks).push(makeRow({
          workload, implementation: 'gpu', n: mb, queries: 1, stats: s, work: mb, unit: 'MB/s',
          agrees: workload === 'readback' ? agrees : null, timing: 'end-to-end',
          note: `${(s.median / mb).toFixed(3)} ms per MB; ${what}`,
        }));
      }
    } finally {
      gpuBuf.destroy();
      staging.destroy();
    }
  }
  out.rows.push(...readbacks);
  return out;
}
