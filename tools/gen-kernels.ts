/**
 * Generates src/runtime/kernels.generated.ts: every compute entry point of every shader module
 * (src/runtime/shaders.ts, MODULES), with the bindings it uses by WGSL name, their numbers and
 * kinds, reflected from the linked WGSL with wgsl_reflect. Call sites bind buffers by those names
 * (src/runtime/bind.ts), so renumbering a binding in WGSL needs only a regeneration, and renaming
 * one fails type-checking wherever the old name is used.
 *
 *   npm run gen:kernels            writes the file
 *   test/cpu/kernels.test.ts       regenerates it in memory and fails on any difference
 *
 * Why at build time rather than reflecting in the browser: wgsl_reflect stays a development
 * dependency (users' bundles do not carry it), and no start-up time goes to parsing WGSL (the
 * generator prints what reflecting every module costs here).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ResourceType, WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { MODULES, type ModuleName } from '../src/runtime/shaders.ts';

export const GENERATED_PATH = fileURLToPath(new URL('../src/runtime/kernels.generated.ts', import.meta.url));

type Kind = 'uniform' | 'read-only-storage' | 'storage';

function kindOf(module: string, entry: string, name: string, resourceType: ResourceType, access: string): Kind {
  if (resourceType === ResourceType.Uniform) {
    return 'uniform';
  }
  if (resourceType === ResourceType.Storage && (access === 'read' || access === 'read_write')) {
    return access === 'read' ? 'read-only-storage' : 'storage';
  }
  throw new Error(`${module}:${entry}: binding ${name} is neither a uniform nor a storage buffer (resource type ${resourceType}, access ${access})`);
}

/** One entry point: its module and its bindings, sorted by number. */
export interface ReflectedKernel {
  readonly module: ModuleName;
  readonly bindings: readonly (readonly [name: string, binding: number, kind: Kind])[];
}

/** Every compute entry point of every module, by entry-point name (names are unique). */
export function reflectKernels(): { kernels: Map<string, ReflectedKernel>; ms: number } {
  const t0 = performance.now();
  const kernels = new Map<string, ReflectedKernel>();
  for (const module of Object.keys(MODULES) as ModuleName[]) {
    const r = new WgslReflect(MODULES[module]().code);
    for (const f of r.entry.compute) {
      if (kernels.has(f.name)) {
        throw new Error(`entry point ${f.name} is in ${kernels.get(f.name)?.module} and in ${module}: entry names must be unique`);
      }
      const bindings = f.resources.map((v) => {
        if (v.group !== 0) {
          throw new Error(`${module}:${f.name}: binding ${v.name} is in group ${v.group}; every kernel binds group 0 only`);
        }
        return [v.name, v.binding, kindOf(module, f.name, v.name, v.resourceType, v.access)] as const;
      }).sort((a, b) => a[1] - b[1]);
      kernels.set(f.name, { module, bindings });
    }
  }
  return { kernels, ms: performance.now() - t0 };
}

/** The text of kernels.generated.ts. */
export function kernelTableSource(): string {
  const { kernels } = reflectKernels();
  const lines = [...kernels.entries()].map(([entry, k]) => {
    const bindings = k.bindings.map(([name, binding, kind]) => `${name}: [${binding}, '${kind}']`).join(', ');
    return `  ${entry}: { module: '${k.module}', bindings: { ${bindings} } },`;
  });
  return [
    '/**',
    ' * Every compute entry point of the library: its shader module (src/runtime/shaders.ts) and the',
    ' * bindings it uses, by WGSL name → [binding number, kind]. Generated from the linked WGSL by',
    ' * tools/gen-kernels.ts (`npm run gen:kernels`); do not edit. test/cpu/kernels.test.ts',
    ' * regenerates it and fails on any difference.',
    ' */',
    'export const KERNELS = {',
    ...lines,
    '} as const;',
    '',
  ].join('\n');
}

export function main(): void {
  const { kernels, ms } = reflectKernels();
  writeFileSync(GENERATED_PATH, kernelTableSource());
  console.log(`wrote ${GENERATED_PATH}: ${kernels.size} entry points of ${Object.keys(MODULES).length} modules (reflecting them took ${ms.toFixed(0)} ms)`);
}
