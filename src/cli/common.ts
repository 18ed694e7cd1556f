/**
 * What the `webgpu-obb` commands share: exit codes, the one-line failure, readable I/O reasons,
 * atomic file writes, reading a scene file, refusing what the CPU reference cannot hold.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseSceneText, SceneError, type Scene } from '../files/scene.ts';
import { CapacityError } from '../errors.ts';

/** Exit codes of the command. */
export const EXIT = {
  OK: 0,
  /** verify or judge found a mismatch, or a run failed for a reason other than those below. */
  FAILED: 1,
  /** Bad usage, a scene file that cannot be read or does not follow the format, or (judge) a result file that does not answer its scene. */
  USAGE: 2,
  /** The GPU backend cannot run here: no browser (or no `webgpu` package, Vulkan loader or driver), no adapter. */
  GPU_UNAVAILABLE: 3,
} as const;

/** Where the command writes; tests pass their own. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** A failure with its exit code and one-line message (printed as "webgpu-obb: <message>"). */
export class CliError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const IO_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EEXIST: 'already exists',
};

/** A file-system error in a few words ("no such file"), else its message on one line. */
export function ioReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && IO_REASONS[code]) || oneLine(error);
}

/** An error's message on one line. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Writes `text` to `path` so that readers see the old file or the whole new one, never half:
 * a temporary file in the same folder, then rename (atomic within one file system). `what`
 * says what failed in the error (default `--out PATH: cannot write the result`).
 */
export async function writeFileAtomic(path: string, text: string | Uint8Array, what = `--out ${path}: cannot write the result`): Promise<void> {
  const target = resolve(path);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, target);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw new CliError(EXIT.FAILED, `${what} (${ioReason(error)})`);
  }
}

/** Reads and parses a scene file; a bad one is exit 2 naming the file and the value. */
export async function readScene(file: string): Promise<{ scene: Scene; text: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(EXIT.USAGE, `${file}: cannot read the scene (${ioReason(error)})`);
  }
  try {
    return { scene: parseSceneText(text), text };
  } catch (error) {
    if (error instanceof SceneError) {
      throw new CliError(EXIT.USAGE, `${file}: ${oneLine(error)}`);
    }
    throw error;
  }
}

/**
 * The identity of a scene file that result files carry (`"scene"`): the SHA-256 of its bytes.
 *
 * @example
 * sceneDigest('{"boxes":[]}') // 'sha256:…' (64 hex digits)
 */
export function sceneDigest(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/**
 * Runs `fn`, work of the float64 reference on the scene of `file`: what the CPU cannot hold (a
 * CapacityError, raised before the memory is taken) is exit 2, one line naming the file and the
 * input (`scene.json: lidars[0].sensor.columns: 1 channel × 100000000 columns = …`).
 *
 * @example
 * const ref = withinReferenceCapacity('scene.json', () => runReference(scene));
 */
export function withinReferenceCapacity<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CapacityError) {
      throw new CliError(EXIT.USAGE, `${file}: ${oneLine(error)}`);
    }
    throw error;
  }
}
