/**
 * Pointers from code to documents point at something (CONTRIBUTING.md, "Pointers from code to
 * documents"). A comment cites a document as `docs/NAME.md`, and a heading of it as
 * `docs/NAME.md, "Heading"` (the Markdown heading's text without its #s, in double quotes on one
 * line; a trailing parenthetical of the heading may be left out); `README, "Heading"`,
 * `CONTRIBUTING.md, "Heading"` and `CHANGELOG.md, "Heading"` cite the top-level documents.
 * `DESIGN.md` is not a file: the design contract is docs/design.md. Every text file under src/,
 * shaders/, bench/, demo/, examples/, tools/ and test/ is read (not test/artifacts, bench/out,
 * bench/results or node_modules), and each failure names its file:line.
 *
 * The documents' own relative links are held to the same rule: in README.md, CONTRIBUTING.md,
 * CHANGELOG.md, docs/*.md and the Markdown files under the folders above, every linked file
 * exists and every #anchor is the GitHub anchor of one of its headings.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src', 'shaders', 'bench', 'demo', 'examples', 'tools', 'test'];
const SKIPPED = new Set(['node_modules', 'test/artifacts', 'bench/out', 'bench/results', 'dist']);
const SELF = relative(root, fileURLToPath(import.meta.url)).split(sep).join('/');
const TOP_DOCUMENTS = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'];

/** The documents a pointer may name without a folder, by the name it uses. */
const TOP_NAMES: Record<string, string> = { README: 'README.md', 'README.md': 'README.md', 'CONTRIBUTING.md': 'CONTRIBUTING.md', 'CHANGELOG.md': 'CHANGELOG.md' };

/** Text files under `dir` (relative to the root), skipping outputs and binaries. */
function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    if (SKIPPED.has(name) || SKIPPED.has(path)) {
      continue;
    }
    const st = statSync(join(root, path), { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      out.push(...textFiles(path));
    } else if (st?.isFile() && st.size < 4_000_000 && !readFileSync(join(root, path)).subarray(0, 8192).includes(0)) {
      out.push(path);
    }
  }
  return out;
}

/** Markdown without its fenced code blocks (their lines kept blank, so line numbers hold). */
function withoutFences(markdown: string): string {
  let inFence = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return '';
    }
    return inFence ? '' : line;
  }).join('\n');
}

/** A Markdown file's headings: the text after the #s, outside fenced code. */
export function headingsOf(markdown: string): string[] {
  return withoutFences(markdown).split('\n').flatMap((line) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    return m ? [m[1]!] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a Markdown file, duplicates numbered as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headingsOf(markdown)) {
    const base = anchorOf(h);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Whether a cited heading names one of `headings` (itself, or without a trailing parenthetical). */
export function namesHeading(cited: string, headings: readonly string[]): boolean {
  return headings.some((h) => h === cited || h.replace(/\s*\([^()]*\)$/, '') === cited);
}

/** A pointer found in a file: the document it names (relative to the root) and the heading, if any. */
export interface Pointer {
  readonly line: number;
  readonly text: string;
  readonly document?: string;
  readonly heading?: string;
  /** Set when the pointer is malformed (a DESIGN.md, a heading quote not closed on its line). */
  readonly problem?: string;
}

const DOC = String.raw`(?<![\w/.-])(docs/[a-z0-9][a-z0-9_-]*\.md|README(?:\.md)?|CONTRIBUTING\.md|CHANGELOG\.md)`;
const WITH_HEADING = new RegExp(`${DOC},?[ \\t]+"([^"\\n]*)("?)`, 'g');
/** A pointer whose heading went to the next line: `docs/x.md,` at a line's end, a quote next. */
const SPLIT = new RegExp(`${DOC},\\s*$`);
const BARE_DOCS = /(?<![\w/.-])(docs\/[a-z0-9][a-z0-9_-]*\.md|CONTRIBUTING\.md|CHANGELOG\.md)/g;
const DESIGN = /(?<![\w/.-])DESIGN\.md/g;

/** The pointers of one file's text. */
export function pointersIn(text: string): Pointer[] {
  const out: Pointer[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const cited = new Set<number>();
    for (const m of line.matchAll(WITH_HEADING)) {
      const name = m[1]!;
      const document = TOP_NAMES[name] ?? name;
      cited.add(m.index);
      if (m[3] === '') {
        out.push({ line: i + 1, text: m[0], document, problem: `the heading's quote is not closed on the line: ${m[0]}` });
      } else {
        out.push({ line: i + 1, text: m[0], document, heading: m[2]! });
      }
    }
    for (const m of line.matchAll(BARE_DOCS)) {
      if (!cited.has(m.index)) {
        out.push({ line: i + 1, text: m[0], document: m[1]! });
      }
    }
    const split = SPLIT.exec(line);
    if (split && /^\s*(?:\*|\/\/)?\s*"/.test(lines[i + 1] ?? '')) {
      out.push({ line: i + 1, text: split[0], problem: `the heading is on the next line: keep ${split[1]}, "Heading" on one line` });
    }
    for (const m of line.matchAll(DESIGN)) {
      out.push({ line: i + 1, text: m[0], problem: 'DESIGN.md does not exist: cite docs/design.md, "Heading"' });
    }
  });
  return out;
}

/** The relative links of a Markdown file, outside code: [text](target) and ![alt](target). */
function linksIn(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  withoutFences(markdown).split('\n').forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        out.push({ line: i + 1, target });
      }
    }
  });
  return out;
}

const cache = new Map<string, string | undefined>();
function read(path: string): string | undefined {
  if (!cache.has(path)) {
    const st = statSync(join(root, path), { throwIfNoEntry: false });
    cache.set(path, st?.isFile() ? readFileSync(join(root, path), 'utf8') : undefined);
  }
  return cache.get(path);
}

/** Problems with the pointers of the scanned folders, as `file:line: message`. */
function pointerProblems(): string[] {
  const problems: string[] = [];
  for (const file of SCANNED.flatMap(textFiles)) {
    if (file === SELF) {
      continue;
    }
    for (const p of pointersIn(read(file) ?? '')) {
      const where = `${file}:${p.line}`;
      if (p.problem !== undefined) {
        problems.push(`${where}: ${p.problem}`);
        continue;
      }
      const text = read(p.document!);
      if (text === undefined) {
        problems.push(`${where}: ${p.document} does not exist (${p.text})`);
      } else if (p.heading !== undefined && !namesHeading(p.heading, headingsOf(text))) {
        problems.push(`${where}: ${p.document} has no heading "${p.heading}"`);
      }
    }
  }
  return problems;
}

/** The Markdown documents whose links are checked. */
function documents(): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const nested = SCANNED.flatMap(textFiles).filter((f) => f.endsWith('.md') && !f.startsWith('test/cpu/api.snapshot'));
  return [...TOP_DOCUMENTS.filter((f) => read(f) !== undefined), ...docs, ...nested];
}

/** Problems with the documents' relative links, as `file:line: message`. */
function linkProblems(): string[] {
  const problems: string[] = [];
  for (const doc of documents()) {
    for (const { line, target } of linksIn(read(doc) ?? '')) {
      const [path = '', anchor] = target.split('#', 2);
      const resolved = path === '' ? doc : relative(root, join(root, dirname(doc), decodeURIComponent(path))).split(sep).join('/');
      const st = statSync(join(root, resolved), { throwIfNoEntry: false });
      if (!st) {
        problems.push(`${doc}:${line}: links ${target}, which does not exist`);
      } else if (anchor !== undefined && anchor !== '') {
        const text = st.isFile() && resolved.endsWith('.md') ? read(resolved) : undefined;
        if (text === undefined || !anchorsOf(text).has(anchor)) {
          problems.push(`${doc}:${line}: links ${target}, but ${resolved} has no heading with the anchor #${anchor}`);
        }
      }
    }
  }
  return problems;
}

describe('pointers from code to documents', () => {
  it('reads a pointer, its heading, and the malformed ones', () => {
    const text = [
      '// see docs/bvh.md, "Refit or rebuild" and docs/guarantees.md',
      '// (README, "Quick start"); the `webgpu` README says otherwise',
      ' * docs/design.md, "LiDAR',
      '// DESIGN.md, gpuweb/cts/docs/fp_primer.md',
      ' * can be dropped (docs/design.md,',
      ' * "Tooling facts").',
    ].join('\n');
    const found = pointersIn(text).map((p) => [p.line, p.document, p.heading, p.problem !== undefined]);
    expect(found).toEqual([
      [1, 'docs/bvh.md', 'Refit or rebuild', false],
      [1, 'docs/guarantees.md', undefined, false],
      [2, 'README.md', 'Quick start', false],
      [3, 'docs/design.md', undefined, true],
      [4, undefined, undefined, true],
      [5, 'docs/design.md', undefined, false],
      [5, undefined, undefined, true],
    ]);
  });

  it('matches a heading exactly or without its trailing parenthetical, and makes GitHub anchors', () => {
    const headings = headingsOf('# Title\n\n## Semantics (CPU and GPU identical)\n```sh\n# not a heading\n```\n### WebGPU / WGSL traps\n');
    expect(headings).toEqual(['Title', 'Semantics (CPU and GPU identical)', 'WebGPU / WGSL traps']);
    expect(namesHeading('Semantics', headings)).toBe(true);
    expect(namesHeading('Semantics (CPU and GPU identical)', headings)).toBe(true);
    expect(namesHeading('Semantic', headings)).toBe(false);
    expect(namesHeading('not a heading', headings)).toBe(false);
    expect(anchorOf('WebGPU / WGSL traps')).toBe('webgpu--wgsl-traps');
    expect(anchorOf('Scene and result files (the CLI contract — keep these field names)')).toBe('scene-and-result-files-the-cli-contract--keep-these-field-names');
    expect(anchorOf('three.js: `webgpu-obb/three`')).toBe('threejs-webgpu-obbthree');
  });

  it('every cited document and heading exists (src, shaders, bench, demo, examples, tools, test)', () => {
    expect(pointerProblems()).toEqual([]);
  });

  it("every relative link of the documents names a file, and every anchor one of that file's headings", () => {
    expect(linkProblems()).toEqual([]);
  });
});
