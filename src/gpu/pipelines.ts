/**
 * Compute pipelines with explicit bind-group layouts, cached per device. The cache is a
 * `WeakMap<GPUDevice, …>`, so a lost or destroyed device takes its pipelines with it. A WGSL
 * compile error becomes a ShaderCompileError located at `file:line` of the chunk it came from.
 */
import { ShaderStage } from './flags.ts';
import { WORKGROUP_SIZE } from '../constants.ts';
import { ShaderCompileError } from '../errors.ts';
import { KERNEL_SOURCES, mapShaderLine, type LinkedShader } from './shaders.ts';

/** How a kernel uses one binding of group 0. */
export type BindingKind = 'uniform' | 'read-only-storage' | 'storage';

/** One compute entry point: its linked source, name and the bindings it uses. */
export interface KernelSpec {
  readonly source: keyof typeof KERNEL_SOURCES;
  readonly entry: string;
  readonly bindings: readonly (readonly [binding: number, kind: BindingKind])[];
}

const R = 'read-only-storage' as const;
const W = 'storage' as const;
const U = 'uniform' as const;

/** Every compute entry point of the library, with its bindings (checked by reflection in tests). */
export const KERNELS = {
  closestHit: { source: 'rayObbBatch', entry: 'closestHit', bindings: [[0, U], [1, R], [2, R], [3, R], [4, W], [5, W]] },
  anyHit: { source: 'rayObbBatch', entry: 'anyHit', bindings: [[0, U], [1, R], [2, R], [3, R], [6, W]] },
  allHits: { source: 'rayObbBatch', entry: 'allHits', bindings: [[0, U], [1, R], [2, R], [3, R], [7, W], [8, W]] },
  obbPairs: { source: 'obbPairs', entry: 'obbPairs', bindings: [[0, U], [1, R], [2, R], [3, R], [4, W]] },
  obbOneVsMany: { source: 'obbPairs', entry: 'obbOneVsMany', bindings: [[0, U], [1, R], [2, R], [4, W]] },
  obbCross: { source: 'obbPairs', entry: 'obbCross', bindings: [[0, U], [1, R], [2, R], [5, W], [6, W]] },
  bvhClosestHit: { source: 'rayObbBatch', entry: 'bvhClosestHit', bindings: [[0, U], [1, R], [2, R], [3, R], [4, W], [5, W], [9, R], [10, W]] },
  bvhAnyHit: { source: 'rayObbBatch', entry: 'bvhAnyHit', bindings: [[0, U], [1, R], [2, R], [3, R], [6, W], [9, R], [10, W]] },
  bvhAllHits: { source: 'rayObbBatch', entry: 'bvhAllHits', bindings: [[0, U], [1, R], [2, R], [3, R], [6, W], [7, W], [8, W], [9, R], [10, W]] },
  bvhLidar: { source: 'rayObbBatch', entry: 'bvhLidar', bindings: [[0, U], [1, R], [2, R], [9, R], [10, W], [11, U], [12, R], [13, W], [14, W], [15, W]] },
  bvhPairs: { source: 'obbPairs', entry: 'bvhPairs', bindings: [[0, U], [1, R], [2, R], [7, R], [8, W], [10, R], [15, W], [16, W]] },
  lidarFootprint: { source: 'lidarRaster', entry: 'lidarFootprint', bindings: [[0, U], [1, R], [2, R], [11, U], [12, R], [16, W], [17, W], [19, W]] },
  lidarBin: { source: 'lidarRaster', entry: 'lidarBin', bindings: [[0, U], [11, U], [16, W], [17, W], [19, W]] },
  lidarSortTiles: { source: 'lidarRaster', entry: 'lidarSortTiles', bindings: [[11, U], [16, W], [17, W], [19, W]] },
  lidarTiles: { source: 'lidarRaster', entry: 'lidarTiles', bindings: [[0, U], [10, W], [11, U], [12, R], [13, W], [14, W], [15, W], [16, W], [17, W], [19, W]] },
  gridCount: { source: 'obbPairs', entry: 'gridCount', bindings: [[0, U], [1, R], [11, U], [12, W], [13, W]] },
  gridScatter: { source: 'obbPairs', entry: 'gridScatter', bindings: [[0, U], [1, R], [11, U], [12, W], [13, W], [14, W]] },
  gridPairs: { source: 'obbPairs', entry: 'gridPairs', bindings: [[0, U], [11, U], [13, W], [14, W], [15, W], [16, W]] },
  pairsNarrowArgs: { source: 'obbPairs', entry: 'pairsNarrowArgs', bindings: [[0, U], [16, W], [17, W]] },
  pairsNarrow: { source: 'obbPairs', entry: 'pairsNarrow', bindings: [[0, U], [1, R], [2, R], [5, W], [6, W], [9, W], [15, W], [16, W]] },
  frustumCull: { source: 'frustum', entry: 'frustumCull', bindings: [[0, U], [1, R], [2, W], [3, W]] },
  frustumArgs: { source: 'frustum', entry: 'frustumArgs', bindings: [[0, U], [3, W], [4, W]] },
  scanBlocks: { source: 'scan', entry: 'scanBlocks', bindings: [[0, U], [1, W], [2, W]] },
  scanAdd: { source: 'scan', entry: 'scanAdd', bindings: [[0, U], [1, W], [2, W]] },
  sortCount: { source: 'sort', entry: 'sortCount', bindings: [[0, U], [1, R], [5, W]] },
  sortScatter: { source: 'sort', entry: 'sortScatter', bindings: [[0, U], [1, R], [2, R], [3, W], [4, W], [5, W]] },
  bvhBoundsPartial: { source: 'bvhBuild', entry: 'bvhBoundsPartial', bindings: [[0, U], [1, R], [2, W]] },
  bvhBoundsFinal: { source: 'bvhBuild', entry: 'bvhBoundsFinal', bindings: [[0, U], [2, W]] },
  bvhMorton: { source: 'bvhBuild', entry: 'bvhMorton', bindings: [[0, U], [1, R], [2, W], [3, W], [4, W]] },
  bvhHierarchy: { source: 'bvhBuild', entry: 'bvhHierarchy', bindings: [[0, U], [3, W], [4, W], [5, W], [6, W]] },
  bvhRefitLeaves: { source: 'bvhBuild', entry: 'bvhRefitLeaves', bindings: [[0, U], [6, W], [7, W], [8, W]] },
  bvhRefitArgs: { source: 'bvhBuild', entry: 'bvhRefitArgs', bindings: [[8, W], [9, R], [10, W]] },
  bvhRefitNodes: { source: 'bvhBuild', entry: 'bvhRefitNodes', bindings: [[1, R], [5, W], [6, W], [7, W], [8, W], [9, R], [11, W]] },
} as const satisfies Record<string, KernelSpec>;

export type KernelName = keyof typeof KERNELS;

/** A ready pipeline and the layout its bind groups must use. */
export interface KernelPipeline {
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  readonly workgroupSize: number;
}

interface DeviceCache {
  modules: Map<string, Promise<{ module: GPUShaderModule; linked: LinkedShader }>>;
  pipelines: Map<string, Promise<KernelPipeline>>;
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

async function compile(device: GPUDevice, name: keyof typeof KERNEL_SOURCES): Promise<{ module: GPUShaderModule; linked: LinkedShader }> {
  const linked = KERNEL_SOURCES[name]();
  const module = device.createShaderModule({ label: `${linked.label}:module`, code: linked.code });
  throwOnCompileErrors(linked, (await module.getCompilationInfo()).messages);
  return { module, linked };
}

function layoutEntries(spec: KernelSpec): GPUBindGroupLayoutEntry[] {
  return spec.bindings.map(([binding, kind]) => ({
    binding,
    visibility: ShaderStage.COMPUTE,
    buffer: { type: kind },
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
export function getKernel(
  device: GPUDevice, name: KernelName, workgroupSize = WORKGROUP_SIZE, constants: KernelConstants = {},
): Promise<KernelPipeline> {
  const cache = cacheOf(device);
  const extra = Object.entries(constants).sort(([a], [b]) => a.localeCompare(b));
  const key = `${name}@${workgroupSize}${extra.map(([k, v]) => `,${k}=${Number(v)}`).join('')}`;
  let pending = cache.pipelines.get(key);
  if (!pending) {
    const spec: KernelSpec = KERNELS[name];
    let mod = cache.modules.get(spec.source);
    if (!mod) {
      mod = compile(device, spec.source);
      cache.modules.set(spec.source, mod);
      mod.catch(() => cache.modules.delete(spec.source));
    }
    pending = mod.then(async ({ module, linked }) => {
      // Only kernels that declare `override WG` take a workgroup size (the BVH build kernels
      // size their workgroup arrays with constants instead).
      const values: Record<string, number> = /\boverride WG\b/.test(linked.code) ? { WG: workgroupSize } : {};
      for (const [k, v] of extra) {
        values[k] = Number(v);
      }
      const layout = device.createBindGroupLayout({ label: `${linked.label}:${spec.entry}:layout`, entries: layoutEntries(spec) });
      const pipeline = await device.createComputePipelineAsync({
        label: `${linked.label}:${spec.entry}:pipeline`,
        layout: device.createPipelineLayout({ label: `${linked.label}:${spec.entry}:pipeline-layout`, bindGroupLayouts: [layout] }),
        compute: { module, entryPoint: spec.entry, constants: values },
      });
      return { pipeline, layout, workgroupSize };
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
