/**
 * The `webgpu-obb` command run in this process (src/cli/main.ts), its output captured: what the
 * CPU tests of the commands share.
 */
import { main, type CliIo } from '../../src/cli/main.ts';

/** Exit code, stdout and stderr of one command line. */
export async function runCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: CliIo = { out: (t) => { out += t; }, err: (t) => { err += t; } };
  const code = await main(argv, io);
  return { code, out, err };
}
