/**
 * Compute pipelines with explicit bind-group layouts, cached per device. Each kernel's module and
 * bindings come from the reflected table (kernels.generated.ts), so the layout is exactly what
 * the WGSL declares. The cache is a `WeakMap<GPUDevice, …>`, so a lost or destroyed device takes
 * its pipelines with it. A WGSL compile error becomes a ShaderCompileError located at
 * `file:line` of the chunk it came from.
 */
import { ShaderStage } from './flags.ts';
import { WORKGROUP_SIZE } from '../constants.ts';
import { ShaderCompileError } from '../errors.ts';
import { KERNELS } from './kernels.generated.ts';
import { MODULES, mapShaderLine, type LinkedShader, type ModuleName } from './shaders.ts';

export { KERNELS };

/** Every compute entry point of the library (kernels.generated.ts). */
export type KernelName = keyof typeof KERNELS;

/** How a kernel uses one binding of group 0. */
export type BindingKind = 'uniform' | 'read-only-storage' | 'storage';

/** The WGSL names of the bindings kernel `K` uses. */
export type BindingName<K extends KernelName> = keyof (typeof KERNELS)[K]['bindings'] & string;

/** A ready pipeline of kernel `K` and the layout its bind groups must use. */
export interface KernelPipeline<K extends KernelName = KernelName> {
  readonly name: K;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  readonly workgroupSize: number;
}

interface DeviceCache {
  modules: Map<string, Promise<{ module: GPUShaderModule; linked: LinkedShader }>>;
  pipelines: Map<string, Promise<KernelPipeline<KernelName>>>;
}

const caches = new WeakMap<GPUDevice, DeviceCache>();

function cacheOf(device: GPUDevice): DeviceCache {
  let cache = caches.get(device);
  if (!cache) {
    cache = { modules: new Map(), pipelines: new Map() };
    caches.set(device, cache);
  }
  return cache;
}

/** Throws a ShaderCompileError for the first error message of a compilation, mapped to file:line. */
export function throwOnCompileErrors(linked: LinkedShader, messages: readonly GPUCompilationMessage[]): void {
  const errors = messages.filter((m) => m.type === 'error');
  const first = errors[0];
  if (!first) {
    return;
  }
  const where = mapShaderLine(linked, first.lineNum);
  const all = errors
    .map((m) => {
      const at = mapShaderLine(linked, m.lineNum);
      return `${at.file}:${at.line}:${m.linePos}: ${m.message}`;
    })
    .join('\n');
  throw new ShaderCompileError(`WGSL compile error in ${linked.label}:\n${all}`, where.file, where.line);
}

async function compile(device: GPUDevice, name: ModuleName): Promise<{ module: GPUShaderModule; linked: LinkedShader }> {
  const linked = MODULES[name]();
  const module = device.createShaderModule({ label: `${linked.label}:module`, code: linked.code });
  throwOnCompileErrors(linked, (await module.getCompilationInfo()).messages);
  return { module, linked };
}

function layoutEntries(name: KernelName): GPUBindGroupLayoutEntry[] {
  return Object.values(KERNELS[name].bindings).map(([binding, kind]) => ({
    binding,
    visibility: ShaderStage.COMPUTE,
    buffer: { type: kind as BindingKind },
  }));
}

/** Pipeline-overridable constants of a kernel (WGSL `override`s), besides the workgroup size. */
export type KernelConstants = Readonly<Record<string, number | boolean>>;

/**
 * The pipeline of kernel `name` on `device`, created once per device, workgroup size and set of
 * override constants.
 *
 * @example
 * const { pipeline, layout } = await getKernel(device, 'closestHit', 64, { TILED: true, CULL: true });
 */
export function getKernel<K extends KernelName>(
  device: GPUDevice, name: K, workgroupSize = WORKGROUP_SIZE, constants: KernelConstants = {},
): Promise<KernelPipeline<K>> {
  const cache = cacheOf(device);
  const extra = Object.entries(constants).sort(([a], [b]) => a.localeCompare(b));
  const key = `${name}@${workgroupSize}${extra.map(([k, v]) => `,${k}=${Number(v)}`).join('')}`;
  let pending = cache.pipelines.get(key) as Promise<KernelPipeline<K>> | undefined;
  if (!pending) {
    const source: ModuleName = KERNELS[name].module;
    let mod = cache.modules.get(source);
    if (!mod) {
      mod = compile(device, source);
      cache.modules.set(source, mod);
      mod.catch(() => cache.modules.delete(source));
    }
    pending = mod.then(async ({ module, linked }) => {
      // Only kernels that declare `override WG` take a workgroup size (the BVH build kernels
      // size their workgroup arrays with constants instead).
      const values: Record<string, number> = /\boverride WG\b/.test(linked.code) ? { WG: workgroupSize } : {};
      for (const [k, v] of extra) {
        values[k] = Number(v);
      }
      const layout = device.createBindGroupLayout({ label: `${linked.label}:${name}:layout`, entries: layoutEntries(name) });
      const pipeline = await device.createComputePipelineAsync({
        label: `${linked.label}:${name}:pipeline`,
        layout: device.createPipelineLayout({ label: `${linked.label}:${name}:pipeline-layout`, bindGroupLayouts: [layout] }),
        compute: { module, entryPoint: name, constants: values },
      });
      return { name, pipeline, layout, workgroupSize };
    });
    cache.pipelines.set(key, pending);
    pending.catch(() => cache.pipelines.delete(key));
  }
  return pending;
}

/**
 * Workgroup grid for `invocations` threads: x ≤ 65,535 (WebGPU's guaranteed limit), y as needed.
 * Kernels number invocations `(wid.x + wid.y × nwg.x) × WG + lid`, so the grid may overshoot.
 *
 * @example
 * dispatchGrid(10_000_000, 64) // [65535, 3]
 */
export function dispatchGrid(invocations: number, workgroupSize: number, maxPerDim = 65535): [number, number] {
  const groups = Math.max(1, Math.ceil(invocations / workgroupSize));
  const x = Math.min(groups, maxPerDim);
  return [x, Math.ceil(groups / x)];
}
