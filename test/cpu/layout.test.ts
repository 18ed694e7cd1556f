/**
 * GPU layouts stay in sync by test: every linked shader module is reflected with wgsl_reflect and
 * its structs are compared with the TS tables (src/layout), the generated constants chunk with
 * src/constants.ts, and the
 * `// offset(N) size(M)` annotations of shaders/common/types.wgsl with the reflection. A struct
 * that changes without its table, or an annotation that goes stale, fails here instead of
 * corrupting a buffer. (Bindings: test/cpu/kernels.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import type { StructInfo } from 'wgsl_reflect/wgsl_reflect.module.js';
import { WGSL_CONSTANTS } from '../../src/constants.ts';
import { LAYOUTS } from '../../src/layout/index.ts';
import { CHUNKS, CONSTANTS_CHUNK, MODULES, linkShader, mapShaderLine, type LinkedShader, type ModuleName } from '../../src/runtime/shaders.ts';

/** 'MAX_DISTANCE' → 'maxDistance', 'OFFSET_B' → 'offsetB', 'HX' → 'hx'. */
function camel(key: string): string {
  return key.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** 'maxDistance' → 'MAX_DISTANCE', 'countA' → 'COUNT_A', 'hx' → 'HX'. */
function upperSnake(name: string): string {
  return name.replace(/([A-Z])/g, '_$1').toUpperCase();
}

const kernelNames = Object.keys(MODULES) as ModuleName[];
const linked = new Map<string, LinkedShader>(kernelNames.map((k) => [k, MODULES[k]()]));
const reflected = new Map<string, WgslReflect>(kernelNames.map((k) => [k, new WgslReflect(linked.get(k)!.code)]));

function reflectionOf(kernel: string): WgslReflect {
  const r = reflected.get(kernel);
  if (!r) {
    throw new Error(`no linked kernel ${kernel}`);
  }
  return r;
}

function structOf(r: WgslReflect, name: string): StructInfo | undefined {
  return r.structs.find((s) => s.name === name);
}

describe('naming helpers', () => {
  it('map table keys and member names both ways', () => {
    expect(camel('CENTER')).toBe('center');
    expect(camel('HX')).toBe('hx');
    expect(camel('MAX_DISTANCE')).toBe('maxDistance');
    expect(camel('FACE_FLAGS')).toBe('faceFlags');
    expect(camel('OFFSET_B')).toBe('offsetB');
    expect(upperSnake('faceFlags')).toBe('FACE_FLAGS');
    expect(upperSnake('countA')).toBe('COUNT_A');
    expect(upperSnake('hx')).toBe('HX');
  });
});

/** Kernels that link the shared structs (shaders/common/types.wgsl); the sort and scan do not. */
const typedKernels = kernelNames.filter((k) => MODULES[k]().chunks.some((c) => c.file === 'shaders/common/types.wgsl'));

it('the sort and scan kernels are the only ones without the shared structs', () => {
  expect(kernelNames.filter((k) => !typedKernels.includes(k)).sort()).toEqual(['scan', 'sort']);
});

describe.each(kernelNames)('linked kernel %s', (kernel) => {
  it('links and reflects (compute entry points found)', () => {
    const r = reflectionOf(kernel);
    expect(r.entry.compute.length).toBeGreaterThan(0);
  });
});

describe.each(typedKernels)('linked kernel %s', (kernel) => {
  describe.each(Object.entries(LAYOUTS))('struct %s', (name, table) => {
    it('has SIZE bytes and every table offset at its member', () => {
      const s = structOf(reflectionOf(kernel), name);
      expect(s, `struct ${name} in ${kernel}`).toBeDefined();
      const st = s as StructInfo;
      expect(st.size).toBe(table.SIZE);
      for (const [key, offset] of Object.entries(table)) {
        if (key === 'SIZE') {
          continue;
        }
        const m = st.members.find((x) => x.name === camel(key));
        expect(m, `${name}.${camel(key)} (table key ${key})`).toBeDefined();
        expect(m?.offset, `${name}.${camel(key)} offset`).toBe(offset);
      }
    });

    it('has no member that the table lacks', () => {
      const st = structOf(reflectionOf(kernel), name) as StructInfo;
      const keys = new Set(Object.keys(table));
      for (const m of st.members) {
        expect(keys.has(upperSnake(m.name)), `${name}.${m.name} needs ${upperSnake(m.name)} in its offset table`).toBe(true);
      }
      expect(st.members.length).toBe(keys.size - 1);
    });
  });
});

describe('generated constants chunk', () => {
  const lines = CONSTANTS_CHUNK.code.split('\n').filter((l) => l.trim() !== '');
  const re = /^const ([A-Z][A-Z0-9_]*): (f32|u32) = ([^;]+);$/;

  it('has exactly one `const NAME: type = value;` per WGSL_CONSTANTS entry', () => {
    const names = lines.map((l) => {
      const m = re.exec(l);
      expect(m, `unparsable line: ${l}`).not.toBeNull();
      return m?.[1];
    });
    expect(names.length).toBe(new Set(names).size);
    expect([...names].sort()).toEqual(Object.keys(WGSL_CONSTANTS).sort());
  });

  it('each value and type equals src/constants.ts (f32 compared after Math.fround)', () => {
    const table = WGSL_CONSTANTS as Record<string, readonly ['f32' | 'u32', number]>;
    for (const l of lines) {
      const m = re.exec(l);
      if (!m) {
        throw new Error(`unparsable line: ${l}`);
      }
      const [, name, type, text] = m as unknown as [string, string, 'f32' | 'u32', string];
      const entry = table[name];
      expect(entry, name).toBeDefined();
      const [wantType, want] = entry as readonly ['f32' | 'u32', number];
      expect(type, name).toBe(wantType);
      if (type === 'u32') {
        expect(text, name).toMatch(/^\d+u$/);
        const v = Number(text.slice(0, -1));
        expect(v, name).toBe(want >>> 0);
        expect(v).toBeLessThan(2 ** 32);
      } else {
        // A WGSL abstract-float literal: digits with a '.' or an exponent, finite as an f32.
        expect(text, name).toMatch(/^-?(\d+\.\d*|\d*\.\d+|\d+)([eE][+-]?\d+)?$/);
        expect(/[.eE]/.test(text), `${name} = ${text} must not read as an integer literal`).toBe(true);
        const v = Math.fround(Number(text));
        expect(Number.isFinite(v), `${name} = ${text} overflows f32`).toBe(true);
        expect(v, name).toBe(Math.fround(want));
      }
    }
  });

  it('every linked kernel starts with the constants chunk (after its global directives)', () => {
    for (const kernel of kernelNames) {
      expect(linked.get(kernel)!.code.replace(/^(?:(?:enable|requires|diagnostic)\b[^\n]*\n)*/, '').startsWith(CONSTANTS_CHUNK.code)).toBe(true);
    }
  });
});

describe('shaders/common/types.wgsl annotations agree with reflection', () => {
  const path = new URL('../../shaders/common/types.wgsl', import.meta.url);
  const text = readFileSync(path, 'utf8');

  interface Annotated {
    readonly name: string;
    readonly size: number | undefined;
    readonly members: { readonly name: string; readonly offset: number | undefined; readonly size: number | undefined }[];
  }

  /** Parses `struct X {`, `  name: type, // offset(N) size(M)` and `} // size(M)`. */
  function parse(src: string): Annotated[] {
    const out: Annotated[] = [];
    let cur: { name: string; size: number | undefined; members: Annotated['members'] } | undefined;
    for (const line of src.split('\n')) {
      const open = /^\s*struct\s+(\w+)\s*\{/.exec(line);
      if (open) {
        cur = { name: open[1]!, size: undefined, members: [] };
        continue;
      }
      if (!cur) {
        continue;
      }
      const close = /^\s*\}/.exec(line);
      if (close) {
        const size = /size\((\d+)\)/.exec(line);
        cur.size = size ? Number(size[1]) : undefined;
        out.push(cur);
        cur = undefined;
        continue;
      }
      // The type may hold commas (array<vec4f, 6>) but no slash.
      const member = /^\s*(\w+)\s*:\s*[^/]+?,?\s*(?:\/\/(.*))?$/.exec(line);
      if (member) {
        const comment = member[2] ?? '';
        const off = /offset\((\d+)\)/.exec(comment);
        const size = /size\((\d+)\)/.exec(comment);
        cur.members.push({ name: member[1]!, offset: off ? Number(off[1]) : undefined, size: size ? Number(size[1]) : undefined });
      }
    }
    return out;
  }

  const annotated = parse(text);

  it('the file is the chunk the kernels link', () => {
    expect(text).toBe(CHUNKS.types.code);
    expect(annotated.map((s) => s.name)).toEqual(expect.arrayContaining(Object.keys(LAYOUTS)));
  });

  it.each(typedKernels)('every member offset/size and struct size matches the reflection of %s', (kernel) => {
    const r = reflectionOf(kernel);
    for (const a of annotated) {
      const s = structOf(r, a.name);
      expect(s, a.name).toBeDefined();
      const st = s as StructInfo;
      expect(a.size, `${a.name}: closing brace needs // size(N)`).toBe(st.size);
      expect(a.members.map((m) => m.name)).toEqual(st.members.map((m) => m.name));
      for (const m of a.members) {
        const rm = st.members.find((x) => x.name === m.name);
        expect(m.offset, `${a.name}.${m.name} offset annotation`).toBe(rm?.offset);
        expect(m.size, `${a.name}.${m.name} size annotation`).toBe(rm?.size);
      }
    }
  });
});

describe('mapShaderLine', () => {
  const chunkCode = new Map<string, string>([
    [CONSTANTS_CHUNK.file, CONSTANTS_CHUNK.code],
    ...Object.values(CHUNKS).map((c) => [c.file, c.code] as [string, string]),
  ]);

  it.each(kernelNames)('maps lines inside every chunk of %s back to the file and line', (kernel) => {
    const l = linked.get(kernel)!;
    const linkedLines = l.code.split('\n');
    expect(l.chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of l.chunks) {
      const src = chunkCode.get(c.file);
      expect(src, c.file).toBeDefined();
      const srcLines = (src as string).split('\n');
      // The chunk file on disk is what was linked (generated constants excepted).
      if (c.file.endsWith('.wgsl')) {
        expect(readFileSync(new URL(`../../${c.file}`, import.meta.url), 'utf8')).toBe(src);
      }
      for (const local of new Set([1, Math.ceil(c.lineCount / 2), c.lineCount])) {
        const line = c.firstLine + local - 1;
        const at = mapShaderLine(l, line);
        expect(at, `${kernel} line ${line}`).toEqual({ file: c.file, line: local });
        expect(linkedLines[line - 1]).toBe(srcLines[local - 1]);
      }
    }
    // Chunks tile the linked source without gaps.
    for (let k = 1; k < l.chunks.length; k++) {
      expect(l.chunks[k]!.firstLine).toBe(l.chunks[k - 1]!.firstLine + l.chunks[k - 1]!.lineCount);
    }
  });

  it('finds a distinctive line of each kernel file (the entry point) at its line in that file', () => {
    for (const [kernel, file, needle] of [
      ['raysBrute', 'shaders/rays/brute.wgsl', 'fn allHits('],
      ['pairsListed', 'shaders/pairs/listed.wgsl', 'fn obbCross('],
      // After the directives linkShader moved to the top (rays/tree_subgroup.wgsl's enable and diagnostic).
      ['raysTreeSubgroup', 'shaders/rays/tree_subgroup.wgsl', 'fn bvhClosestHitSubgroup('],
    ] as const) {
      const l = linked.get(kernel)!;
      const at = l.code.split('\n').findIndex((x) => x.startsWith(needle)) + 1;
      expect(at).toBeGreaterThan(0);
      const fileLine = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n').findIndex((x) => x.startsWith(needle)) + 1;
      expect(mapShaderLine(l, at)).toEqual({ file, line: fileLine });
    }
  });

  it('puts a chunk\'s global directives first, once each, and leaves empty lines in their place', () => {
    const l = linked.get('raysTreeSubgroup')!;
    const lines = l.code.split('\n');
    expect(lines.slice(0, 2)).toEqual(['enable subgroups;', 'diagnostic(off, subgroup_uniformity);']);
    expect(lines.filter((x) => x.startsWith('enable ')).length).toBe(1);
    expect(l.chunks[0]!.firstLine).toBe(3);
    const twice = linkShader('twice', [{ file: 'a.wgsl', code: 'enable f16;\nconst a = 1;' }, { file: 'b.wgsl', code: 'enable f16;\nconst b = 2;' }]);
    expect(twice.code.split('\n').filter((x) => x === 'enable f16;').length).toBe(1);
    expect(mapShaderLine(twice, twice.code.split('\n').indexOf('const b = 2;') + 1)).toEqual({ file: 'b.wgsl', line: 2 });
  });

  it('falls back to the label for a line past the end', () => {
    const l = linked.get('pairsListed')!;
    const past = l.code.split('\n').length + 5;
    expect(mapShaderLine(l, past)).toEqual({ file: l.label, line: past });
  });
});
