#!/usr/bin/env node
// The `webgpu-obb` command: a thin launcher for the built CLI (src/cli/main.ts → dist/cli.js).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('webgpu-obb is not built: run `npm run build`\n');
  process.exit(2);
}
// `webgpu-obb run … | head` closes stdout early; that is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') {
    process.exit(process.exitCode ?? 0);
  }
  throw error;
});
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
