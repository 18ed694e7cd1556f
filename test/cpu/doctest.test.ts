/**
 * The doctest itself (tools/doctest.ts; `npm run doctest` runs it over src/ in `npm test`): it
 * finds the examples where TypeDoc does, reports an error at the example's own line and column
 * in src/, and looks names up in the package's entries as package.json and typedoc.json list them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENTRIES, declaredNames, extractExamples, runDoctest } from '../../tools/doctest.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

const SOURCE = [
  '/**',                                   // 1
  ' * Adds.',                              // 2
  ' *',                                    // 3
  ' * @example',                           // 4
  ' * add([1, 2, 3], [1, 1, 1]) // [2, 3, 4]', // 5
  ' * add([1, 2, 3], [1, 1])',             // 6
  ' */',                                   // 7
  '/**',                                   // 8
  ' * @example First, the shell:',         // 9
  ' * ```sh',                              // 10
  ' * npm install webgpu-obb',             // 11
  ' * ```',                                // 12
  ' * ```ts',                              // 13
  ' * const v = add([0, 0, 0], [1, 0, 0]);', // 14
  ' * ```',                                // 15
  ' * @returns nothing',                   // 16
  ' */',                                   // 17
].join('\n');

describe('doctest', () => {
  it('extracts each @example with the source line and column of each code line; fences other than ts/js are skipped', () => {
    const examples = extractExamples('src/core/vec.ts', SOURCE);
    expect(examples.map((e) => e.tagLine)).toEqual([4, 9]);
    expect(examples[0]!.lines).toEqual([
      { text: 'add([1, 2, 3], [1, 1, 1]) // [2, 3, 4]', line: 5, column: 4 },
      { text: 'add([1, 2, 3], [1, 1])', line: 6, column: 4 },
    ]);
    expect(examples[1]!.lines).toEqual([{ text: 'const v = add([0, 0, 0], [1, 0, 0]);', line: 14, column: 4 }]);
  });

  it('knows the names an example declares or imports', () => {
    const names = declaredNames("import { a, b as c } from 'x';\nconst { d, e: [f] } = g;\nlet h = 1;\nfunction i() {}\nclass J {}\nk(l);");
    expect([...names].sort()).toEqual(['J', 'a', 'c', 'd', 'f', 'h', 'i']);
  });

  it("reports a type error at the example's line and column in src/, with the module's exports in scope", () => {
    const { examples, errors } = runDoctest({
      files: ['src/core/vec.ts'],
      read: () => SOURCE,
      outDir: join(root, '.doctest', 'self-test'),
    });
    expect(examples).toBe(2);
    expect(errors).toHaveLength(1);
    // `[1, 1]` is not a Vec3: line 6, at the second argument.
    expect(errors[0]).toMatch(/^src\/core\/vec\.ts:6:19 - error TS2345: /);
    expect(errors[0]).toContain('add([1, 2, 3], [1, 1])');
  }, 60_000);

  it('looks names up in every entry of package.json, which typedoc.json documents', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const specifiers = Object.keys(pkg.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? 'webgpu-obb' : `webgpu-obb/${k.slice(2)}`));
    expect(ENTRIES.map(([s]) => s).sort()).toEqual(specifiers.sort());
    const typedoc = ts.parseConfigFileTextToJson('typedoc.json', readFileSync(join(root, 'typedoc.json'), 'utf8')).config as { entryPoints: string[] };
    expect([...typedoc.entryPoints].sort()).toEqual(ENTRIES.map(([, f]) => f).sort());
  });
});
