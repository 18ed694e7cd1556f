/**
 * Suite `adapter`: what WebGPU adapter the page gets, and a minimal compute round trip that proves
 * upload → dispatch → readback works before any real kernel is trusted.
 */
import squareWgsl from './square.wgsl?raw';

/** Adapter identity as plain data (the `GPUAdapterInfo` attributes are prototype getters). */
export interface AdapterIdentity {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter?: boolean;
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
}

/** Result of {@link info}. */
export interface AdapterReport {
  hasGpu: boolean;
  userAgent: string;
  adapter: AdapterIdentity | null;
  limits: Record<string, number>;
  features: string[];
}

/** Result of {@link square}. */
export interface SquareReport {
  n: number;
  workgroups: [number, number];
  /** FNV-1a over the output words, in order (see adapter.test.ts). */
  checksum: number;
  /** Elements whose GPU square differs from `Math.imul(v, v) >>> 0`. */
  mismatches: number;
  firstMismatch: { index: number; input: number; gpu: number; expected: number } | null;
  head: number[];
}

/** The input value at index `i`: spread over the whole u32 range so squares wrap. */
export function squareInput(i: number): number {
  return (i * 2654435761) >>> 0;
}

/** Copies WebIDL attributes (enumerable getters on the prototype) into a plain object. */
function attributes<T extends object>(source: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in source) {
    const value = source[key];
    if (typeof value !== 'function') {
      out[key] = value;
    }
  }
  return out;
}

async function requestAdapter(): Promise<GPUAdapter | null> {
  if (!('gpu' in navigator)) {
    return null;
  }
  return navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
}

/** Describes the adapter `navigator.gpu.requestAdapter()` returns, or says there is none. */
export async function info(): Promise<AdapterReport> {
  const adapter = await requestAdapter();
  if (!adapter) {
    return { hasGpu: false, userAgent: navigator.userAgent, adapter: null, limits: {}, features: [] };
  }
  const raw = attributes(adapter.info);
  const identity: AdapterIdentity = {
    vendor: adapter.info.vendor,
    architecture: adapter.info.architecture,
    device: adapter.info.device,
    description: adapter.info.description,
  };
  if (typeof raw['isFallbackAdapter'] === 'boolean') {
    identity.isFallbackAdapter = raw['isFallbackAdapter'];
  }
  if (typeof raw['subgroupMinSize'] === 'number') {
    identity.subgroupMinSize = raw['subgroupMinSize'];
  }
  if (typeof raw['subgroupMaxSize'] === 'number') {
    identity.subgroupMaxSize = raw['subgroupMaxSize'];
  }
  const limits: Record<string, number> = {};
  for (const [key, value] of Object.entries(attributes(adapter.limits))) {
    if (typeof value === 'number') {
      limits[key] = value;
    }
  }
  return {
    hasGpu: true,
    userAgent: navigator.userAgent,
    adapter: identity,
    limits,
    features: [...adapter.features].sort(),
  };
}

/**
 * Squares `n` u32 values on the GPU (wrapping, as WGSL does), reads them back through a staging
 * buffer and checks them in the page. Everything runs inside validation and out-of-memory error
 * scopes that must come back empty; every object made here is destroyed.
 */
export async function square(n: number): Promise<SquareReport> {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`square: n must be a positive integer, got ${n}`);
  }
  const adapter = await requestAdapter();
  if (!adapter) {
    throw new Error('square: navigator.gpu.requestAdapter() returned no adapter');
  }
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  const uncaptured: string[] = [];
  device.addEventListener('uncapturederror', (event) => {
    uncaptured.push((event as GPUUncapturedErrorEvent).error.message);
  });
  const buffers: GPUBuffer[] = [];
  try {
    const bytes = n * 4;
    if (bytes > device.limits.maxStorageBufferBindingSize) {
      throw new RangeError(`square: ${bytes} bytes exceed maxStorageBufferBindingSize`);
    }
    const workgroupSize = 64;
    const groups = Math.ceil(n / workgroupSize);
    const maxPerDim = device.limits.maxComputeWorkgroupsPerDimension;
    const gx = Math.min(groups, maxPerDim);
    const gy = Math.ceil(groups / gx);

    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');

    const module = device.createShaderModule({ label: 'test:square:module', code: squareWgsl });
    const info = await module.getCompilationInfo();
    const compileErrors = info.messages.filter((m) => m.type === 'error');
    if (compileErrors.length > 0) {
      throw new Error(
        `square.wgsl: ${compileErrors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`,
      );
    }
    const layout = device.createBindGroupLayout({
      label: 'test:square:bind-group-layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
      ],
    });
    const pipeline = await device.createComputePipelineAsync({
      label: 'test:square:pipeline',
      layout: device.createPipelineLayout({ label: 'test:square:pipeline-layout', bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main', constants: { WORKGROUP_SIZE: workgroupSize } },
    });

    const input = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      input[i] = squareInput(i);
    }
    const make = (label: string, usage: GPUBufferUsageFlags): GPUBuffer => {
      const buffer = device.createBuffer({ label, size: bytes, usage });
      buffers.push(buffer);
      return buffer;
    };
    const inputBuffer = make('test:square:input', GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    const outputBuffer = make('test:square:output', GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
    const staging = make('test:square:staging', GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    device.queue.writeBuffer(inputBuffer, 0, input);

    const bindGroup = device.createBindGroup({
      label: 'test:square:bind-group',
      layout,
      entries: [
        { binding: 0, resource: { buffer: inputBuffer } },
        { binding: 1, resource: { buffer: outputBuffer } },
      ],
    });
    const encoder = device.createCommandEncoder({ label: 'test:square:encoder' });
    const pass = encoder.beginComputePass({ label: 'test:square:pass' });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(gx, gy);
    pass.end();
    encoder.copyBufferToBuffer(outputBuffer, 0, staging, 0, bytes);
    device.queue.submit([encoder.finish()]);

    await staging.mapAsync(GPUMapMode.READ);
    const output = new Uint32Array(staging.getMappedRange().slice(0));
    staging.unmap();

    const validation = await device.popErrorScope();
    const outOfMemory = await device.popErrorScope();
    if (validation) {
      throw new Error(`square: validation error: ${validation.message}`);
    }
    if (outOfMemory) {
      throw new Error(`square: out-of-memory error: ${outOfMemory.message}`);
    }
    if (uncaptured.length > 0) {
      throw new Error(`square: uncaptured GPU errors: ${uncaptured.join('; ')}`);
    }

    let checksum = 0x811c9dc5;
    let mismatches = 0;
    let firstMismatch: SquareReport['firstMismatch'] = null;
    for (let i = 0; i < n; i++) {
      const gpu = output[i] ?? 0;
      const v = input[i] ?? 0;
      const expected = Math.imul(v, v) >>> 0;
      if (gpu !== expected) {
        mismatches++;
        firstMismatch ??= { index: i, input: v, gpu, expected };
      }
      checksum = Math.imul(checksum ^ gpu, 0x01000193) >>> 0;
    }
    return {
      n,
      workgroups: [gx, gy],
      checksum,
      mismatches,
      firstMismatch,
      head: Array.from(output.subarray(0, 8)),
    };
  } finally {
    for (const buffer of buffers) {
      buffer.destroy();
    }
    device.destroy();
  }
}
