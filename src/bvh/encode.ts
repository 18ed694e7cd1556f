/**
 * Small helpers for kernels that record many dispatches into one encoder: a bind group from a
 * binding → buffer map, and a dispatch over a 2D grid.
 */
import { dispatchGrid, type KernelPipeline } from '../gpu/pipelines.ts';

/** Binding number → buffer (whole buffer bound). */
export type Bindings = Readonly<Record<number, GPUBuffer>>;

/**
 * Records one dispatch of `kernel` over `workgroups` workgroups (split into a 2D grid when above
 * 65,535) with the given bindings.
 *
 * @example
 * dispatch(device, pass, await getKernel(device, 'scanAdd', SCAN_WG), { 0: params, 1: data, 2: sums }, blocks);
 */
export function dispatch(
  device: GPUDevice, pass: GPUComputePassEncoder, kernel: KernelPipeline, bindings: Bindings, workgroups: number, label = 'obb',
): void {
  if (workgroups <= 0) {
    return;
  }
  bind(device, pass, kernel, bindings, label);
  const [x, y] = dispatchGrid(workgroups, 1);
  pass.dispatchWorkgroups(x, y);
}

/** Records one dispatch of `kernel` whose size a previous dispatch wrote into `args` (x, y, z at `offset`). */
export function dispatchIndirect(
  device: GPUDevice, pass: GPUComputePassEncoder, kernel: KernelPipeline, bindings: Bindings, args: GPUBuffer, offset = 0, label = 'obb',
): void {
  bind(device, pass, kernel, bindings, label);
  pass.dispatchWorkgroupsIndirect(args, offset);
}

function bind(device: GPUDevice, pass: GPUComputePassEncoder, kernel: KernelPipeline, bindings: Bindings, label: string): void {
  pass.setPipeline(kernel.pipeline);
  pass.setBindGroup(0, device.createBindGroup({
    label: `${label}:bind-group`,
    layout: kernel.layout,
    entries: Object.entries(bindings).map(([b, buffer]) => ({ binding: Number(b), resource: { buffer } })),
  }));
}

/** A uniform buffer holding `words` (u32 or f32 values written through `write`). */
export function uniformBuffer(device: GPUDevice, bytes: ArrayBuffer, label: string): GPUBuffer {
  const buffer = device.createBuffer({ label, size: Math.max(16, Math.ceil(bytes.byteLength / 16) * 16), usage: 0x40 | 0x08 });
  device.queue.writeBuffer(buffer, 0, bytes);
  return buffer;
}
