// After tsc: bundles the compiled executor and CLI (from dist/, tsc's output)
// into ESM entries plus lazily loaded chunks. A process starts much faster from
// a bundle than from hundreds of separate modules: an executor in ~1.4x the
// time of `node -e 0` instead of ~2.1x, and `skate --help` in 0.1 s, not 0.4 s.
// The js_eval worker is its own entry: it runs as a separate process (isolated-vm
// needs --no-node-snapshot on Node 20) and must be plain JavaScript, never a TS loader.
import { chmod, copyFile, readdir, rm } from 'node:fs/promises';
import { build } from 'esbuild';

const common = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addons load from node_modules; bundling cannot inline them (the js_eval
  // worker requires this Node's isolated-vm build by its resolved path).
  // react-devtools-core is imported by Ink only when DEV=true (an optional peer we do not ship).
  external: ['isolated-vm-v5', 'isolated-vm-v6', 'react-devtools-core'],
  banner: {
    js: "import { createRequire as __skateRequire } from 'node:module'; const require = __skateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

// Tools' model-facing descriptions live next to their source as .md files; the build copies them
// to dist/, where tool modules read them, before generating the tools' definitions from those modules.
for (const name of await readdir('executor/tools')) {
  if (name.endsWith('.md')) await copyFile(`executor/tools/${name}`, `dist/executor/tools/${name}`);
}
await import('./tool-definitions.mjs');

// Chunk names carry content hashes: without this, every build would leave the previous chunks behind.
await rm('dist/executor/bundle', { recursive: true, force: true });
await rm('dist/cli', { recursive: true, force: true });

await build({
  ...common,
  entryPoints: {
    executor: 'dist/executor/main.js',
    'js-eval-worker': 'dist/executor/js-eval/worker-main.js',
  },
  outdir: 'dist/executor/bundle',
});
// React (under Ink) in its production build: the development build logs every component render
// to performance marks and checks each element, roughly doubling the cost of a frame of the terminal UI.
await build({
  ...common,
  entryPoints: { skate: 'dist/harness/cli/main.js' },
  outdir: 'dist/cli',
  define: { 'process.env.NODE_ENV': '"production"' },
});

// `npx skate` runs the bin file directly; tsc and esbuild do not set the executable bit.
await chmod('dist/cli/skate.js', 0o755);
