/**
 * `npm run doctest` (part of `npm test`): every `@example` in src/ must compile. Each example is
 * written to its own module under `.doctest/` (ignored by git) with the imports and placeholders
 * of the convention below, and the lot is type-checked with the project's compiler options (the
 * TypeScript API over `.doctest/tsconfig.json`; `npx tsc -p .doctest` runs the same check by
 * hand). An error is reported at the example's own line in src/, e.g.
 *
 *   src/runtime/shaders.ts:98:98 - error TS2339: Property 'obbPairs' does not exist on type …
 *
 *   node bench/node-run.mjs tools/doctest.ts [--list]
 *
 * ## How to write an example (the convention)
 *
 * Also in CONTRIBUTING.md, "Examples in the TSDoc (the doctest)".
 *
 * - An example is the text after `@example` up to the next tag or the end of the comment; with
 *   code fences, the fenced blocks (a fence whose language is not ts, js or empty, e.g. ```sh,
 *   is not checked). It is TypeScript, run as a module: top-level `await` is fine, and so is
 *   `import … from 'webgpu-obb/…'` (the package's entries resolve to src/).
 * - In scope without an import: everything the example's own module exports, then everything
 *   the package's entries export (webgpu-obb, then /advanced, /reference, /judge, /lidar,
 *   /three, /node; a name exported by several comes from the first). An `import` in the example,
 *   or a top-level declaration, takes the name over.
 * - The names an example takes as given are declared in {@link PLACEHOLDERS} (`gpu`, `set`,
 *   `boxes`, `rays`, `scene`, …, with their types; the float64 folders take `boxes` and `rays` as
 *   BoxArray and RayArray, and src/three/ has its own `scene`, `renderer`, `mesh`, `boxes`; see
 *   {@link FOLDER_PLACEHOLDERS}). Use those names for the given things; declare anything else in the example, or
 *   add it there when many examples need it.
 * - Results shown as comments (`add([1, 2, 3], [1, 1, 1]) // [2, 3, 4]`) are not checked, only
 *   the code's types. A comma expression of results (`hits.box[0], hits.t[0]`) does not compile:
 *   `console.log(hits.box[0], hits.t[0])`.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../', import.meta.url));
const defaultOutDir = join(root, '.doctest');

/** The package's entries, in the order a name is looked up, with the module each maps to. */
export const ENTRIES: readonly (readonly [specifier: string, file: string])[] = [
  ['webgpu-obb', 'src/index.ts'],
  ['webgpu-obb/advanced', 'src/advanced.ts'],
  ['webgpu-obb/reference', 'src/reference/index.ts'],
  ['webgpu-obb/judge', 'src/judge/index.ts'],
  ['webgpu-obb/lidar', 'src/lidar/index.ts'],
  ['webgpu-obb/three', 'src/three/index.ts'],
  ['webgpu-obb/node', 'src/node/runtime.ts'],
];

/**
 * The names examples take as given, with their types (declared with `declare let`, so an
 * example may also assign them). Overridden per folder by {@link FOLDER_PLACEHOLDERS}.
 */
export const PLACEHOLDERS: Readonly<Record<string, string>> = {
  // The GPU side.
  gpu: "import('webgpu-obb').ObbGpu",
  ctx: "import('webgpu-obb').GpuContext",
  set: "import('webgpu-obb').BoxSet",
  sensor: "import('webgpu-obb').LidarSensor",
  sweep: "import('webgpu-obb').LidarSweep",
  hits: "import('webgpu-obb').GpuClosestHits",
  bvh: "import('webgpu-obb/advanced').Bvh",
  rq: "import('webgpu-obb/advanced').RayQueries",
  pq: "import('webgpu-obb/advanced').PairQueries",
  pool: "import('webgpu-obb/advanced').BufferPool",
  device: 'GPUDevice',
  encoder: 'GPUCommandEncoder',
  pass: 'GPUComputePassEncoder',
  renderPass: 'GPURenderPassEncoder',
  buffer: 'GPUBuffer',
  // Inputs as users write them (the float64 folders take BoxArray and RayArray instead).
  boxes: "import('webgpu-obb').BoxInput[]",
  rays: "import('webgpu-obb').Ray[]",
  box: "import('webgpu-obb').BoxInput",
  cars: "import('webgpu-obb').BoxSet",
  pedestrians: "import('webgpu-obb').BoxSet",
  n: 'number',
  pairs: 'Uint32Array',
  comparison: "import('webgpu-obb/judge').Comparison",
  culler: "import('webgpu-obb').FrustumCuller",
  planes: "import('webgpu-obb').Plane[]",
  viewProj: "import('webgpu-obb').Mat4",
  invViewProj: "import('webgpu-obb').Mat4",
  // LiDAR.
  desc: "import('webgpu-obb').LidarDescription",
  pose: "import('webgpu-obb').LidarPose",
  motion: "import('webgpu-obb').LidarMotion",
  cloud: "import('webgpu-obb/lidar').LidarPointCloud",
  // Scene and result files (the CLI and the verification kit).
  scene: "import('webgpu-obb/judge').Scene",
  json: 'unknown',
  sceneText: 'string',
  resultText: 'string',
  text: 'string',
  // The page, and three.js.
  canvas: 'HTMLCanvasElement',
  camera: "import('three').PerspectiveCamera",
};

/** The float64 folders' `boxes` and `rays`: BoxArray and RayArray. */
const FLOAT64_INPUTS: Readonly<Record<string, string>> = {
  boxes: "import('webgpu-obb').BoxArray",
  rays: "import('webgpu-obb').RayArray",
  cars: "import('webgpu-obb').BoxArray",
  pedestrians: "import('webgpu-obb').BoxArray",
};

/**
 * Placeholders of the examples under a folder (or of one file), over {@link PLACEHOLDERS}; the
 * longest matching prefix applies last.
 */
export const FOLDER_PLACEHOLDERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'src/core/': FLOAT64_INPUTS,
  'src/layout/': FLOAT64_INPUTS,
  'src/reference/': FLOAT64_INPUTS,
  'src/compare/': FLOAT64_INPUTS,
  'src/scenes/': FLOAT64_INPUTS,
  // These examples start from the inputs (boxArrayFrom(boxes)).
  'src/reference/index.ts': { boxes: PLACEHOLDERS['boxes']!, rays: PLACEHOLDERS['rays']! },
  'src/reference/raycast.ts': { boxes: PLACEHOLDERS['boxes']!, rays: PLACEHOLDERS['rays']! },
  'src/reference/pairs.ts': { boxes: PLACEHOLDERS['boxes']!, rays: PLACEHOLDERS['rays']! },
  'src/cli/': { raw: "import('../src/files/results.ts').GpuSceneRaw" },
  'src/files/': { raw: "import('../src/files/results.ts').GpuSceneRaw" },
  'src/judge/': {
    comparison: "import('webgpu-obb/judge').SceneComparison",
    verdict: "import('webgpu-obb/judge').SceneComparison",
    groups: "import('webgpu-obb/judge').JudgedGroup[]",
  },
  'src/three/': {
    scene: "import('three').Scene",
    renderer: "import('three/webgpu').WebGPURenderer",
    mesh: "import('three').Mesh",
    boxes: "import('webgpu-obb/three').ThreeBoxes",
  },
};

/** One `@example` block of a source file. */
export interface Example {
  /** Repository-relative path of the source file. */
  readonly file: string;
  /** 1-based line of the `@example` tag. */
  readonly tagLine: number;
  /** The code, one entry per line, each with the 1-based source line and column it starts at. */
  readonly lines: readonly { readonly text: string; readonly line: number; readonly column: number }[];
}

/** Every `@example` of `text` (the contents of `file`), in order. */
export function extractExamples(file: string, text: string): Example[] {
  const source = text.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < source.length; i++) {
    // A tag opens a line of a doc comment (` * @example`), so code never matches.
    const tag = /^(\s*\*\s*)@example\b ?(.*)$/.exec(source[i]!);
    if (!tag) {
      continue;
    }
    const body: { text: string; line: number; column: number }[] = [];
    if (tag[2]!.trim() !== '') {
      body.push({ text: tag[2]!, line: i + 1, column: source[i]!.length - tag[2]!.length + 1 });
    }
    let j = i + 1;
    for (; j < source.length; j++) {
      const l = source[j]!;
      if (/^\s*\*\//.test(l) || /^\s*\*\s*@\w/.test(l)) {
        break;
      }
      const prefix = /^\s*\* ?/.exec(l)?.[0] ?? '';
      body.push({ text: l.slice(prefix.length), line: j + 1, column: prefix.length + 1 });
    }
    out.push(...splitFences(file, i + 1, body));
    i = j - 1;
  }
  return out;
}

/** The code of an example's body: its fenced ts/js blocks, or all of it when it has no fence. */
function splitFences(file: string, tagLine: number, body: Example['lines']): Example[] {
  if (!body.some((l) => /^\s*```/.test(l.text))) {
    const lines = trimBlank(body);
    return lines.length > 0 ? [{ file, tagLine, lines }] : [];
  }
  const out: Example[] = [];
  let block: Example['lines'][number][] | undefined;
  let checked = false;
  for (const l of body) {
    const fence = /^\s*```\s*(\w*)/.exec(l.text);
    if (fence && !block) {
      block = [];
      checked = ['', 'ts', 'typescript', 'js', 'javascript'].includes(fence[1]!.toLowerCase());
    } else if (fence && block) {
      if (checked && block.length > 0) {
        out.push({ file, tagLine, lines: block });
      }
      block = undefined;
    } else if (block) {
      block.push(l);
    }
  }
  return out;
}

function trimBlank(lines: Example['lines']): Example['lines'] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.text.trim() === '') {
    a++;
  }
  while (b > a && lines[b - 1]!.text.trim() === '') {
    b--;
  }
  return lines.slice(a, b);
}

/** Every .ts file under src/, repository-relative, sorted. */
function sourceFiles(dir = 'src'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [`${dir}/${e.name}`] : []))
    .sort();
}

/** Names an example declares or imports at its top level (they take over imports and placeholders). */
export function declaredNames(code: string): Set<string> {
  const sf = ts.createSourceFile('example.ts', code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const names = new Set<string>();
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) {
      names.add(name.text);
    } else {
      for (const e of name.elements) {
        if (!ts.isOmittedExpression(e)) {
          bind(e.name);
        }
      }
    }
  };
  for (const s of sf.statements) {
    if (ts.isVariableStatement(s)) {
      s.declarationList.declarations.forEach((d) => bind(d.name));
    } else if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) && s.name) {
      names.add(s.name.text);
    } else if (ts.isImportDeclaration(s) && s.importClause) {
      const c = s.importClause;
      if (c.name) {
        names.add(c.name.text);
      }
      if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) {
        names.add(c.namedBindings.name.text);
      } else if (c.namedBindings) {
        c.namedBindings.elements.forEach((e) => names.add(e.name.text));
      }
    }
  }
  return names;
}

/** The repository root as seen from `dir` (`..`, `../..`), for paths in generated files. */
function up(dir: string): string {
  return relative(dir, root).split(sep).join('/') || '.';
}

/** The doctest's compiler options: the project's, with every entry mapped to src/. */
function writeTsconfig(outDir: string): string {
  const path = join(outDir, 'tsconfig.json');
  const paths: Record<string, string[]> = {};
  for (const [specifier, file] of ENTRIES) {
    paths[specifier] = [`${up(outDir)}/${file}`];
  }
  const config = {
    extends: `${up(outDir)}/tsconfig.json`,
    compilerOptions: {
      noEmit: true,
      // Each example imports every name in scope, types and values alike, and uses a few.
      verbatimModuleSyntax: false,
      isolatedModules: false,
      noUnusedLocals: false,
      moduleDetection: 'force',
      paths,
    },
    include: ['*.ts'],
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

/** The export names of each module, from a program over them. */
function exportsOf(program: ts.Program, files: readonly string[]): Map<string, string[]> {
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const file of files) {
    const sf = program.getSourceFile(join(root, file));
    const symbol = sf && checker.getSymbolAtLocation(sf);
    out.set(file, symbol ? checker.getExportsOfModule(symbol).map((s) => s.name).filter((n) => n !== 'default') : []);
  }
  return out;
}

interface Generated {
  readonly example: Example;
  readonly path: string;
  /** Lines before the example's first line in the generated file. */
  readonly headerLines: number;
}

function generate(example: Example, index: number, exports: Map<string, string[]>, outDir: string): { name: string; text: string; headerLines: number } {
  const code = example.lines.map((l) => l.text).join('\n');
  const declared = declaredNames(code);
  const taken = new Set(declared);
  const header: string[] = [`// ${example.file}:${example.tagLine} (generated by tools/doctest.ts)`];
  const placeholders = { ...PLACEHOLDERS };
  const folders = Object.keys(FOLDER_PLACEHOLDERS).filter((f) => example.file.startsWith(f)).sort((a, b) => a.length - b.length);
  for (const folder of folders) {
    Object.assign(placeholders, FOLDER_PLACEHOLDERS[folder]);
  }
  for (const name of Object.keys(placeholders)) {
    taken.add(name);
  }
  const sources: [string, string][] = [[`${up(outDir)}/${example.file}`, example.file], ...ENTRIES.map(([s, f]): [string, string] => [s, f])];
  for (const [specifier, file] of sources) {
    const names = (exports.get(file) ?? []).filter((n) => !taken.has(n));
    names.forEach((n) => taken.add(n));
    if (names.length > 0) {
      header.push(`import { ${names.join(', ')} } from '${specifier}';`);
    }
  }
  for (const [name, type] of Object.entries(placeholders)) {
    if (!declared.has(name)) {
      header.push(`declare let ${name}: ${type};`);
    }
  }
  const name = `${example.file.replace(/^src\//, '').replace(/[/.]/g, '_')}_L${example.tagLine}_${index}.ts`;
  return { name, text: `${header.join('\n')}\n${code}\n`, headerLines: header.length };
}

/** Where a generated file's diagnostic points in src/. */
function sourcePosition(g: Generated, line0: number, character0: number): { line: number; column: number } {
  const k = line0 - g.headerLines;
  const l = g.example.lines[k];
  return l ? { line: l.line, column: l.column + character0 } : { line: g.example.tagLine, column: 1 };
}

/** What {@link runDoctest} checks, and where it writes. */
export interface DoctestOptions {
  /** Repository-relative source files (default: every .ts file under src/). */
  readonly files?: readonly string[];
  /** A file's text (default: read from disk); the names in scope still come from the file on disk. */
  readonly read?: (file: string) => string;
  /** Where the generated modules go (default `.doctest/`; emptied first). */
  readonly outDir?: string;
}

/** Extracts every example of src/, type-checks them, and returns the errors as printable lines. */
export function runDoctest(options: DoctestOptions = {}): { examples: number; files: number; errors: string[] } {
  const files = options.files ?? sourceFiles();
  const read = options.read ?? ((f: string) => readFileSync(join(root, f), 'utf8'));
  const outDir = options.outDir ?? defaultOutDir;
  const examples = files.flatMap((f) => extractExamples(f, read(f)));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const configPath = writeTsconfig(outDir);
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!parsed) {
    throw new Error(`cannot read ${configPath}`);
  }
  const modules = [...new Set([...examples.map((e) => e.file), ...ENTRIES.map(([, f]) => f)])];
  const host = ts.createCompilerHost(parsed.options);
  const first = ts.createProgram({ rootNames: modules.map((f) => join(root, f)), options: parsed.options, host });
  const exports = exportsOf(first, modules);

  const generated: Generated[] = examples.map((example, k) => {
    const { name, text, headerLines } = generate(example, k, exports, outDir);
    const path = join(outDir, name);
    writeFileSync(path, text);
    return { example, path, headerLines };
  });
  const program = ts.createProgram({ rootNames: generated.map((g) => g.path), options: parsed.options, host, oldProgram: first });
  const byPath = new Map(generated.map((g) => [ts.sys.resolvePath(g.path), g]));
  const errors: string[] = [];
  for (const g of generated) {
    const sf = program.getSourceFile(g.path);
    if (!sf) {
      errors.push(`${g.example.file}:${g.example.tagLine}: the generated ${relative(root, g.path)} was not compiled`);
      continue;
    }
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      if (d.category !== ts.DiagnosticCategory.Error) {
        continue;
      }
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: g.headerLines, character: 0 };
      const gen = d.file ? byPath.get(ts.sys.resolvePath(d.file.fileName)) : g;
      const pos = sourcePosition(gen ?? g, at.line, at.character);
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
      const code = (gen ?? g).example.lines[at.line - (gen ?? g).headerLines]?.text.trim();
      errors.push(`${g.example.file}:${pos.line}:${pos.column} - error TS${d.code}: ${message}${code ? `\n    ${code}` : ''}`);
    }
  }
  for (const d of program.getGlobalDiagnostics()) {
    errors.push(`doctest: error TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n  ')}`);
  }
  return { examples: examples.length, files: new Set(examples.map((e) => e.file)).size, errors };
}

export function main(args: string[]): void {
  if (args.includes('--list')) {
    for (const f of sourceFiles()) {
      for (const e of extractExamples(f, readFileSync(join(root, f), 'utf8'))) {
        console.log(`${e.file}:${e.tagLine} (${e.lines.length} lines)`);
      }
    }
    return;
  }
  const t0 = performance.now();
  const { examples, files, errors } = runDoctest();
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  if (errors.length > 0) {
    console.error(errors.join('\n'));
    console.error(`\ndoctest: ${errors.length} error(s) in the @example blocks of src/ (${examples} examples in ${files} files, ${seconds} s); the generated modules are in ${relative(root, defaultOutDir)}/ (see tools/doctest.ts for the convention)`);
    process.exitCode = 1;
    return;
  }
  console.log(`doctest: ${examples} examples in ${files} files of src/ type-check (${seconds} s)`);
}
