/**
 * Bindings by WGSL name (src/runtime/bind.ts, src/runtime/kernels.generated.ts): the committed
 * table equals a fresh reflection of every linked module, entry point by entry point; bindGroup
 * turns names into the reflected numbers and refuses unknown and missing names; a renumbered
 * binding changes only numbers, a renamed one changes the names the call sites must use.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { bindGroup } from '../../src/runtime/bind.ts';
import { KERNELS, type KernelName, type KernelPipeline } from '../../src/runtime/pipelines.ts';
import { MODULES, type ModuleName } from '../../src/runtime/shaders.ts';
import { GENERATED_PATH, kernelTableSource, reflectKernels } from '../../tools/gen-kernels.ts';

const { kernels: reflected, ms } = reflectKernels();

describe('the generated kernel table', () => {
  it('equals a regeneration from the WGSL (run `npm run gen:kernels` after changing a binding)', () => {
    console.log(`reflected ${reflected.size} entry points of ${Object.keys(MODULES).length} modules in ${ms.toFixed(0)} ms`);
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(kernelTableSource());
  });

  it('has every compute entry point of every module, and nothing else', () => {
    expect(Object.keys(KERNELS).sort()).toEqual([...reflected.keys()].sort());
  });

  it.each(Object.keys(KERNELS) as KernelName[])('%s: module, binding names, numbers and kinds as reflected', (name) => {
    const r = reflected.get(name);
    expect(r, `${name} in the reflection`).toBeDefined();
    expect(KERNELS[name].module).toBe(r?.module);
    expect(Object.entries(KERNELS[name].bindings).map(([n, [b, k]]) => [n, b, k])).toEqual(r?.bindings.map((x) => [...x]));
  });
});

/** A device whose createBindGroup returns its descriptor, to see what bindGroup builds. */
const fakeDevice = { createBindGroup: (d: GPUBindGroupDescriptor) => d } as unknown as GPUDevice;
const fakeKernel = <K extends KernelName>(name: K): KernelPipeline<K> =>
  ({ name, layout: {} as GPUBindGroupLayout, pipeline: {} as GPUComputePipeline, workgroupSize: 64 });
const buffer = (label: string): GPUBuffer => ({ label }) as GPUBuffer;

describe('bindGroup', () => {
  it('binds each buffer at the number its WGSL name has', () => {
    const d = bindGroup(fakeDevice, fakeKernel('closestHit'), {
      params: buffer('p'), boxes: buffer('b'), boxMasks: buffer('m'), rays: buffer('r'), hits: buffer('h'), geometry: buffer('g'),
    }) as unknown as GPUBindGroupDescriptor;
    const got = [...d.entries].map((e) => [e.binding, ((e.resource as GPUBufferBinding).buffer as GPUBuffer).label]);
    const want = Object.entries(KERNELS.closestHit.bindings).map(([n, [b]]) => [b, { params: 'p', boxes: 'b', boxMasks: 'm', rays: 'r', hits: 'h', geometry: 'g' }[n]]);
    expect(got).toEqual(want);
  });

  it('refuses a name the kernel does not bind, and a binding left without a buffer, naming them', () => {
    const scan = { scanParams: buffer('p'), scanData: buffer('d'), scanSums: buffer('s') };
    expect(() => bindGroup(fakeDevice, fakeKernel('scanAdd'), { ...scan, extra: buffer('x') } as never)).toThrow(/scanAdd has no binding named extra/);
    const missing = { scanParams: scan.scanParams, scanData: scan.scanData };
    expect(() => bindGroup(fakeDevice, fakeKernel('scanAdd'), missing as never)).toThrow(/scanAdd: no buffer given for its binding scanSums/);
  });
});

describe('changing a binding in WGSL', () => {
  const reflectEntry = (code: string, entry: string): [string, number][] =>
    (new WgslReflect(code).entry.compute.find((f) => f.name === entry)?.resources ?? []).map((v) => [v.name, v.binding]);
  const code = MODULES.raysBrute().code;
  const original = reflectEntry(code, 'closestHit');

  it('renumbered: the same names, a new number (call sites unchanged, the table regenerated)', () => {
    const renumbered = code.replace('@binding(4) var<storage, read_write> hits', '@binding(40) var<storage, read_write> hits');
    expect(renumbered).not.toBe(code);
    const after = reflectEntry(renumbered, 'closestHit');
    expect(after.map(([n]) => n).sort()).toEqual(original.map(([n]) => n).sort());
    expect(after.find(([n]) => n === 'hits')?.[1]).toBe(40);
  });

  it('renamed: the table names it differently, so the committed table (and every call site) is out of date', () => {
    const renamed = code.replaceAll(/\bhits\b/g, 'hitsOut');
    const after = reflectEntry(renamed, 'closestHit').map(([n]) => n);
    expect(after).toContain('hitsOut');
    expect(after).not.toContain('hits');
    expect(Object.keys(KERNELS.closestHit.bindings)).toContain('hits');
  });

  it('every module has entry points in the table', () => {
    for (const module of Object.keys(MODULES) as ModuleName[]) {
      expect([...reflected.values()].some((k) => k.module === module), module).toBe(true);
    }
  });
});
