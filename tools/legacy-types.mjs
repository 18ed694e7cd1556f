// After `tsc -p tsconfig.build.json`: dist/types-ts5/, the same declarations for TypeScript
// before 6.0, whose lib.dom has no WebGPU types: each entry's declaration file references
// @webgpu/types (a dependency of the package). TypeScript 6+ reads dist/types/, which uses the
// WebGPU types of its own lib.dom (referencing @webgpu/types there would clash with them).
// The exports map picks the tree with a `types@<6` condition, and typesVersions does the same for
// `moduleResolution: node`. test/package/consumer.test.ts type-checks a consumer with both.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const ENTRIES = ['index.d.ts', 'advanced.d.ts', 'reference/index.d.ts', 'node/runtime.d.ts', 'three/index.d.ts', 'judge/index.d.ts', 'lidar/index.d.ts'];

rmSync(`${dist}types-ts5`, { recursive: true, force: true });
cpSync(`${dist}types`, `${dist}types-ts5`, { recursive: true });
for (const entry of ENTRIES) {
  const path = `${dist}types-ts5/${entry}`;
  writeFileSync(path, `/// <reference types="@webgpu/types" />\n${readFileSync(path, 'utf8')}`);
}
console.log(`dist/types-ts5: declarations for TypeScript < 6 (${ENTRIES.length} entries reference @webgpu/types)`);
