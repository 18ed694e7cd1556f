/**
 * Bind groups by WGSL name: the one place where buffers meet binding numbers. A call site says
 * `{ params, boxes: set.buffer, hits }`; the numbers and kinds come from the reflected table
 * (kernels.generated.ts), so a binding renumbered in WGSL needs only `npm run gen:kernels`, and a
 * renamed one fails type-checking at every call site that still uses the old name (and a missing
 * or unknown name fails at run time with an invariant error naming it).
 */
import { invariant } from '../errors.ts';
import { KERNELS, dispatchGrid, type BindingName, type KernelName, type KernelPipeline } from './pipelines.ts';

/** One buffer for each binding kernel `K` uses, by WGSL name (whole buffers are bound). */
export type KernelBuffers<K extends KernelName> = { readonly [N in BindingName<K>]: GPUBuffer };

/**
 * The bind group of `kernel` with `buffers`, one for each of its bindings, by WGSL name.
 *
 * @example
 * declare const scanParams: GPUBuffer, scanData: GPUBuffer, scanSums: GPUBuffer;
 * const group = bindGroup(device, await getKernel(device, 'scanAdd'), { scanParams, scanData, scanSums });
 */
export function bindGroup<K extends KernelName>(device: GPUDevice, kernel: KernelPipeline<K>, buffers: KernelBuffers<K>, label: string = kernel.name): GPUBindGroup {
  const spec = KERNELS[kernel.name].bindings as Readonly<Record<string, readonly [number, string]>>;
  const given = buffers as Readonly<Record<string, GPUBuffer | undefined>>;
  for (const name of Object.keys(given)) {
    invariant(name in spec, `${kernel.name} has no binding named ${name} (it binds ${Object.keys(spec).join(', ')})`);
  }
  const entries = Object.entries(spec).map(([name, [binding]]) => {
    const buffer = given[name];
    invariant(buffer !== undefined, `${kernel.name}: no buffer given for its binding ${name}`);
    return { binding, resource: { buffer } };
  });
  return device.createBindGroup({ label: `${label}:bind-group`, layout: kernel.layout, entries });
}

/**
 * Records one dispatch of `kernel` over `workgroups` workgroups (split into a 2D grid when above
 * 65,535) with the given buffers.
 *
 * @example
 * declare const scanParams: GPUBuffer, scanData: GPUBuffer, scanSums: GPUBuffer, blocks: number;
 * dispatch(device, pass, await getKernel(device, 'scanAdd', SCAN_WG), { scanParams, scanData, scanSums }, blocks);
 */
export function dispatch<K extends KernelName>(
  device: GPUDevice, pass: GPUComputePassEncoder, kernel: KernelPipeline<K>, buffers: KernelBuffers<K>, workgroups: number, label: string = kernel.name,
): void {
  if (workgroups <= 0) {
    return;
  }
  pass.setPipeline(kernel.pipeline);
  pass.setBindGroup(0, bindGroup(device, kernel, buffers, label));
  const [x, y] = dispatchGrid(workgroups, 1);
  pass.dispatchWorkgroups(x, y);
}

/** Records one dispatch of `kernel` whose size a previous dispatch wrote into `args` (x, y, z at `offset`). */
export function dispatchIndirect<K extends KernelName>(
  device: GPUDevice, pass: GPUComputePassEncoder, kernel: KernelPipeline<K>, buffers: KernelBuffers<K>, args: GPUBuffer, offset = 0, label: string = kernel.name,
): void {
  pass.setPipeline(kernel.pipeline);
  pass.setBindGroup(0, bindGroup(device, kernel, buffers, label));
  pass.dispatchWorkgroupsIndirect(args, offset);
}
