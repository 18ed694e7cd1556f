/**
 * The GPU test path itself: an adapter exists (no adapter is a failure, never a skip), a compute
 * round trip is exact, and the page logs no errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage } from './harness.ts';
import type { GpuPage } from './harness.ts';
import { squareInput } from './page/suites/adapter.ts';

/** FNV-1a over u32 words, as the page computes it over the GPU output. */
function expectedChecksum(n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    const v = squareInput(i);
    // Exact in float64: split v*v mod 2^32 without relying on Math.imul.
    const lo = v & 0xffff;
    const hi = v >>> 16;
    const square = (lo * lo + (((2 * lo * hi) % 0x10000) * 0x10000)) % 0x1_0000_0000;
    h = Math.imul(h ^ square, 0x01000193) >>> 0;
  }
  return h;
}

describe('adapter', () => {
  let gpu: GpuPage | undefined;

  beforeAll(async () => {
    gpu = await openGpuPage();
  });

  afterAll(async () => {
    await gpu?.close();
  });

  function page(): GpuPage {
    if (!gpu) {
      throw new Error('GPU page did not open (see beforeAll)');
    }
    return gpu;
  }

  it('gets a WebGPU adapter', async () => {
    const report = await page().call('adapter', 'info');
    console.log(
      `WebGPU adapter: ${JSON.stringify(report.adapter)}\n` +
        `user agent: ${report.userAgent}\n` +
        `features: ${report.features.join(', ')}\n` +
        `limits: ${JSON.stringify(report.limits)}`,
    );
    expect(
      report.hasGpu,
      `navigator.gpu.requestAdapter() returned null in ${page().executablePath} ` +
        `${page().browserArgs.join(' ')} (WEBGPU_OBB_ADAPTER=default needs a working Vulkan GPU driver)`,
    ).toBe(true);
    expect(report.adapter).not.toBeNull();
    expect(report.limits['maxComputeWorkgroupsPerDimension']).toBeGreaterThanOrEqual(65_535);
  });

  it('squares 100000 u32 values exactly', async () => {
    const n = 100_000;
    const report = await page().call('adapter', 'square', n);
    expect(report.firstMismatch).toBeNull();
    expect(report.mismatches).toBe(0);
    expect(report.n).toBe(n);
    expect(report.head).toEqual(
      Array.from({ length: 8 }, (_, i) => Math.imul(squareInput(i), squareInput(i)) >>> 0),
    );
    expect(report.checksum).toBe(expectedChecksum(n));
  });

  it('reports a page-side failure with its message', async () => {
    await expect(page().call('adapter', 'square', -1)).rejects.toThrow(/n must be a positive integer/);
    // @ts-expect-error -- no such page function: tsc refuses the name, and the page does too.
    await expect(page().call('adapter', 'nope')).rejects.toThrow(/exports no function 'nope'/);
  });

  it('logged no console errors', () => {
    expect(page().consoleErrors).toEqual([]);
    if (page().consoleWarnings.length > 0) {
      console.log(`page warnings:\n${page().consoleWarnings.join('\n')}`);
    }
  });
});
