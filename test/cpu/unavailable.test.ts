/**
 * ObbGpu.create when WebGPU cannot start: every way it fails is a WebGpuUnavailableError with a
 * reason and a message that says what to do (the headless-Chromium canvas flags where they
 * help), never a raw OperationError. Fake `GPU` objects stand in for the browser's.
 */
import { describe, expect, it } from 'vitest';
import { ObbGpu, WebGpuUnavailableError, type UnavailableReason } from '../../src/index.ts';

const operationError = (message: string): Error => Object.assign(new Error(message), { name: 'OperationError' });

/** A device that gets as far as compiling the first kernel, whose compilation info rejects. */
function droppingDevice(): GPUDevice {
  return {
    label: 'fake', lost: new Promise(() => undefined), features: new Set(), limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28 },
    createShaderModule: () => ({ getCompilationInfo: () => Promise.reject(operationError('Instance dropped in popErrorScope')) }),
    destroy: () => undefined,
  } as unknown as GPUDevice;
}

function adapterWith(requestDevice: () => Promise<GPUDevice>): GPUAdapter {
  return {
    features: new Set(), info: { vendor: 'fake', architecture: '', device: '', description: '' },
    limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28, maxStorageBuffersPerShaderStage: 10 },
    requestDevice,
  } as unknown as GPUAdapter;
}

async function failure(options: Parameters<typeof ObbGpu.create>[0]): Promise<WebGpuUnavailableError> {
  try {
    await ObbGpu.create(options);
  } catch (error) {
    expect(error).toBeInstanceOf(WebGpuUnavailableError);
    expect((error as Error).message).not.toMatch(/\n/);
    return error as WebGpuUnavailableError;
  }
  throw new Error('ObbGpu.create resolved');
}

describe('ObbGpu.create when WebGPU cannot start', () => {
  const cases: [string, UnavailableReason, () => GPU | undefined, RegExp][] = [
    ['no navigator.gpu and no gpu option', 'no-webgpu', () => undefined, /no navigator\.gpu.*Node runtime/],
    ['requestAdapter returns null', 'no-adapter', () => ({ requestAdapter: async () => null }) as unknown as GPU, /no adapter.*--use-webgpu-adapter=swiftshader/],
    ['requestAdapter rejects', 'device-request-failed', () => ({ requestAdapter: () => Promise.reject(operationError('boom')) }) as unknown as GPU, /requestAdapter failed \(OperationError: boom\).*--enable-features=Vulkan/],
    ['requestDevice rejects (a dropped instance)', 'device-request-failed',
      () => ({ requestAdapter: async () => adapterWith(() => Promise.reject(operationError('Instance dropped'))) }) as unknown as GPU,
      /requestDevice failed \(OperationError: Instance dropped\).*--use-vulkan=swiftshader/],
    ['the instance drops while the kernels compile', 'instance-lost',
      () => ({ requestAdapter: async () => adapterWith(async () => droppingDevice()) }) as unknown as GPU,
      /WebGPU failed while the kernels were prepared \(OperationError: Instance dropped in popErrorScope\).*--enable-features=Vulkan/],
  ];
  it.each(cases)('%s: %s', async (_what, reason, gpu, message) => {
    const fake = gpu();
    const e = await failure(fake ? { gpu: fake } : {});
    expect(e.reason).toBe(reason);
    expect(e.message).toMatch(message);
  });
});
