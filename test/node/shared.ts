/**
 * Helpers of the `node` test project: one ObbGpu per test file on Dawn (src/node/runtime.ts), a
 * validation + out-of-memory error scope around every test body that must come back empty, and
 * the comparator assertions of the browser suites.
 *
 * The Vulkan driver follows WEBGPU_OBB_ADAPTER as the browser tests do: SwiftShader unless it
 * says `default`. No driver or no adapter makes `openNodeGpu` throw, so every test of the file
 * fails: these tests never skip.
 */
import { expect } from 'vitest';
import { type BoxArray, type ObbGpu, type RayKernelTuning } from '../../src/index.ts';
import { mulberry32, randomBoxes } from '../../src/judge/index.ts';
import { formatComparison, type Comparison } from '../../src/judge/index.ts';
import { createNodeGpu, driverFromEnv } from '../../src/node/runtime.ts';

/** Ray-kernel paths under test: the adapter's default, or forced (as test/gpu/page/shared.ts). */
export type Tuning = 'default' | 'tiled-cull' | 'flat';

const TUNINGS: Readonly<Record<Tuning, Partial<RayKernelTuning> | undefined>> = {
  default: undefined,
  'tiled-cull': { tiled: true, cull: true },
  flat: { tiled: false, cull: false },
};

/** The driver the node tests ask for. */
export const TEST_DRIVER = driverFromEnv() ?? 'swiftshader';

/** An ObbGpu on Dawn with every kernel compiled. */
export async function openNodeGpu(tuning: Tuning = 'default'): Promise<ObbGpu> {
  const rayTuning = TUNINGS[tuning];
  const gpu = await createNodeGpu(rayTuning ? { driver: TEST_DRIVER, rayTuning } : { driver: TEST_DRIVER });
  console.log(`adapter: ${gpu.adapterName}; ray kernels: tiled=${gpu.rays.tuning.tiled} cull=${gpu.rays.tuning.cull}`);
  return gpu;
}

/**
 * Runs `body` inside a validation and an out-of-memory error scope on the device; fails if either
 * catches an error the library did not already turn into an exception.
 */
export async function scoped<T>(gpu: ObbGpu, body: () => Promise<T>): Promise<T> {
  const device = gpu.ctx.device;
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await body();
  } catch (error) {
    failure = error;
  }
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  if (failure !== undefined) {
    throw failure;
  }
  expect(validation?.message ?? oom?.message ?? null, 'uncaught GPU error').toBeNull();
  return result as T;
}

/**
 * Zero mismatches, every case accounted for, at most `maxAmbiguousFraction` ambiguous (random
 * suites: 1e-3; adversarial groups are ambiguous by design and pass 1). Prints the report.
 */
export function expectClean(c: Comparison, maxAmbiguousFraction = 1, label = ''): void {
  const report = formatComparison(c, 3);
  console.log(label ? `[${label}] ${report}` : report);
  expect(c.mismatch, report).toBe(0);
  expect(c.agree + c.ambiguous).toBe(c.total);
  expect(c.ambiguous / Math.max(1, c.total)).toBeLessThanOrEqual(maxAmbiguousFraction);
}

/** Random boxes in a ring 2–40 m around `offset`, their centres within ±3 m of its height. */
export function street(n: number, seed: number, offset: readonly [number, number, number]): BoxArray {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(n, rnd, { extent: 40, offset: [offset[0], offset[1], offset[2]], halfMin: 0.3, halfMax: 2.5 });
  for (let i = 0; i < n; i++) {
    boxes.data[i * 15 + 2] = offset[2] + (rnd() - 0.5) * 6;
  }
  return boxes;
}
