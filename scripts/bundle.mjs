// After tsc: bundles the compiled executor (ESM entries plus lazily loaded chunks) and the
// CLI (one CommonJS bundle, see below), from dist/, tsc's output. A process starts much faster from
// a bundle than from hundreds of separate modules: an executor in ~1.4x the
// time of `node -e 0` instead of ~2.1x, and `skate --help` in 0.1 s, not 0.4 s.
// The js_eval worker is its own entry: it runs as a separate process (isolated-vm
// needs --no-node-snapshot on Node 20) and must be plain JavaScript, never a TS loader.
import { createHash } from 'node:crypto';
import { chmod, copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
// The CLI: one CommonJS bundle, which its bin (harness/cli/skate.ts) compiles with V8's code cache.
// Node 20 caches no ES modules, and the same code as ESM chunks cost ~50 ms of module loading plus
// ~40 ms of compiling per start. Lazily imported commands become lazily run parts of the bundle.
// React (under Ink) in its production build: the development build logs every component render
// to performance marks and checks each element, roughly doubling the cost of a frame of the terminal UI.
const production = { 'process.env.NODE_ENV': '"production"' };
const esmHost = path.resolve('dist/harness/cli/esm-host.js');
/**
 * Ink uses top-level await (yoga-layout, its reconciler), which CommonJS cannot hold: the terminal
 * UI's packages are an ES module of their own (harness/cli/tui-vendor.ts), and inside the CommonJS
 * bundle these package names are stand-ins for what the bin loaded (esm-host.ts).
 */
const tuiVendorStandIns = {
  name: 'tui-vendor-stand-ins',
  setup(build) {
    const names = {
      ink: 'ink',
      marked: 'marked',
      'marked-terminal': 'markedTerminal',
      react: 'react',
      'react/jsx-runtime': 'jsxRuntime',
    };
    build.onResolve({ filter: /^(ink|marked|marked-terminal|react|react\/jsx-runtime)$/ }, (args) => ({
      path: args.path,
      namespace: 'tui-vendor',
    }));
    build.onLoad({ filter: /.*/, namespace: 'tui-vendor' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(esmHost)}).tuiVendor().${names[args.path]};`,
      loader: 'js',
      resolveDir: path.dirname(esmHost),
    }));
  },
};
// The CLI as CommonJS: dist/cli holds a package.json of its own saying so, which also spares the
// bin Node's ES module loader. The bundle is one function expression (Node's CommonJS wrapper
// around the code): the bin compiles the file's text as it is, without copying it into a wrapper.
const importMetaUrl = {
  define: { 'import.meta.url': '__skateImportMetaUrl' },
  // "use strict" first: after the banner, esbuild's own would no longer be a directive.
  banner: `"use strict";var __skateImportMetaUrl = require('node:url').pathToFileURL(__filename).href;`,
};
/**
 * The providers of settings (`harness/provider/settings-provider.ts`) and the SDKs under them
 * (openai; Bedrock's with AWS signing; Vertex's with Google auth) would triple the CLI bundle that
 * every start compiles, for runs that mostly use none of them: they are a bundle of their own,
 * `dist/cli/provider-sdks.js`, which the CLI bundle requires the first time a settings provider is used.
 */
const providerSdksStandIn = {
  name: 'provider-sdks-stand-in',
  setup(build) {
    build.onResolve({ filter: /\/settings-provider\.js$/ }, (args) => ({
      path: args.path,
      namespace: 'provider-sdks',
    }));
    build.onLoad({ filter: /.*/, namespace: 'provider-sdks' }, () => ({
      contents: "module.exports = require(require('node:path').join(__dirname, 'provider-sdks.js'));",
      loader: 'js',
    }));
  },
};
/**
 * The MCP SDK's OAuth client (`skate mcp login`, a remote server's token refresh) is needed by few
 * runs: a bundle of its own, `dist/cli/mcp-auth-sdk.js`, required the first time one needs it.
 */
const mcpAuthSdkStandIn = {
  name: 'mcp-auth-sdk-stand-in',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/sdk\/client\/auth\.js$/ }, (args) => ({
      path: args.path,
      namespace: 'mcp-auth-sdk',
    }));
    build.onLoad({ filter: /.*/, namespace: 'mcp-auth-sdk' }, () => ({
      contents: "module.exports = require(require('node:path').join(__dirname, 'mcp-auth-sdk.js'));",
      loader: 'js',
    }));
  },
};
const cli = await build({
  ...common,
  splitting: false,
  format: 'cjs',
  entryPoints: { 'skate-cli': 'dist/harness/cli/main.js' },
  outdir: 'dist/cli',
  // Without comments the bundle is plain ASCII, which the bin reads as a one-byte string: decoding
  // a few MB of UTF-8 cost 15-25 ms per start. Names stay, so stack traces still name functions.
  minifyWhitespace: true,
  define: { ...production, ...importMetaUrl.define },
  banner: { js: `(function (exports, require, module, __filename, __dirname) {${importMetaUrl.banner}` },
  footer: { js: '})' },
  plugins: [tuiVendorStandIns, providerSdksStandIn, mcpAuthSdkStandIn],
  metafile: true,
});
// The bin runs the bundle without an ES module loader: an import() left in it would fail when run.
for (const [file, output] of Object.entries(cli.metafile.outputs)) {
  const dynamic = output.imports.filter((i) => i.external && i.kind === 'dynamic-import');
  if (dynamic.length) throw new Error(`${file}: dynamic import of ${dynamic.map((i) => i.path).join(', ')}`);
}
await build({
  ...common,
  splitting: false,
  format: 'cjs',
  entryPoints: { 'mcp-auth-sdk': '@modelcontextprotocol/sdk/client/auth.js' },
  outdir: 'dist/cli',
  define: { ...production, ...importMetaUrl.define },
  banner: { js: importMetaUrl.banner },
  // pkce-challenge keeps an import('node:crypto') for old Node: as require(), no ES module loader needed.
  supported: { 'dynamic-import': false },
});
await build({
  ...common,
  splitting: false,
  format: 'cjs',
  entryPoints: { 'provider-sdks': 'dist/harness/provider/settings-provider.js' },
  outdir: 'dist/cli',
  define: { ...production, ...importMetaUrl.define },
  banner: { js: importMetaUrl.banner },
  // gaxios and @smithy's HTTP handler import Node built-ins with import(); as require() they need no ES module loader.
  supported: { 'dynamic-import': false },
  legalComments: 'external',
});
const cliBundle = await readFile('dist/cli/skate-cli.js');
if (!cliBundle.every((byte) => byte < 0x80)) throw new Error('dist/cli/skate-cli.js is not plain ASCII');
await writeFile('dist/cli/package.json', '{ "type": "commonjs" }\n');
/**
 * Ink keeps every text it measured or wrapped in module-level caches that never shrink (a long
 * session's RSS grows with every row ever drawn, each partial row of a streamed reply included):
 * in the bundle, its two cache modules are Skate's bounded ones (harness/tui/ink-text/).
 */
const inkBoundedTextCaches = {
  name: 'ink-bounded-text-caches',
  setup(build) {
    build.onResolve({ filter: /^\.\/(measure-text|wrap-text)\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]ink[\\/]build[\\/]/.test(args.importer)) return undefined;
      return { path: path.resolve('dist/harness/tui/ink-text', path.basename(args.path)) };
    });
  },
};
// Split, so that Ink's development-only import of react-devtools-core stays in a chunk never loaded.
await build({
  ...common,
  entryPoints: { 'tui-vendor': 'dist/harness/cli/tui-vendor.js' },
  outExtension: { '.js': '.mjs' },
  outdir: 'dist/cli',
  define: production,
  plugins: [inkBoundedTextCaches],
});
await build({
  ...common,
  splitting: false,
  format: 'cjs',
  entryPoints: { skate: 'dist/harness/cli/skate.js' },
  outdir: 'dist/cli',
  define: {
    ...importMetaUrl.define,
    SKATE_CLI_BUNDLE_HASH: JSON.stringify(createHash('sha256').update(cliBundle).digest('hex').slice(0, 16)),
  },
  banner: { js: importMetaUrl.banner },
  plugins: [
    {
      name: 'tui-vendor-module',
      setup(build) {
        build.onResolve({ filter: /^\.\/tui-vendor\.js$/ }, () => ({
          path: './tui-vendor.mjs',
          external: true,
        }));
      },
    },
  ],
});

// `npx skate` runs the bin file directly; tsc and esbuild do not set the executable bit.
await chmod('dist/cli/skate.js', 0o755);
