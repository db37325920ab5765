// After tsc: bundles the compiled executor (dist/executor/main.js, from tsc) into one ESM
// entry plus lazily loaded chunks. An executor starts ~40% faster from a bundle
// than from ~200 separate modules, and every tool call waits on that start.
// The js_eval worker is a second entry: it runs as its own process (it needs
// --no-node-snapshot for isolated-vm) and must be plain JavaScript, never a TS loader.
import { chmod } from 'node:fs/promises';
import { build } from 'esbuild';

await build({
  entryPoints: {
    executor: 'dist/executor/main.js',
    'js-eval-worker': 'dist/executor/js-eval/worker-main.js',
  },
  outdir: 'dist/executor/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addons load from node_modules; bundling cannot inline them. execa is only
  // imported on an executor's first command, so it can stay in node_modules too.
  external: ['isolated-vm', 'execa'],
  banner: {
    js: "import { createRequire as __skateRequire } from 'node:module'; const require = __skateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// tsc does not set the executable bit; `npx skate` runs the bin file directly.
await chmod('dist/harness/cli/main.js', 0o755);
