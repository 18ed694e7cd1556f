// Runs a TypeScript bench module in Node through Vite's SSR loader (no build step, no tsx):
//   node bench/node-run.mjs bench/validate.ts [args…]
// The module must export `main(args: string[])`.
import { createServer } from 'vite';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node bench/node-run.mjs <module.ts> [args…]');
  process.exit(2);
}
const server = await createServer({
  server: { middlewareMode: true, hmr: false, watch: null },
  appType: 'custom',
  logLevel: 'error',
  optimizeDeps: { noDiscovery: true },
});
try {
  const mod = await server.ssrLoadModule(new URL(entry, `file://${process.cwd()}/`).pathname);
  await mod.main(args);
} finally {
  await server.close();
}
