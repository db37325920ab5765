#!/usr/bin/env node
/**
 * The `skate` bin (dist/cli/skate.js). The CLI itself is one CommonJS bundle (dist/cli/skate-cli.js),
 * compiled here with V8's code cache: Node 20 has no compile cache for modules, and loading the
 * CLI as ES module chunks cost ~50 ms of loader work and ~40 ms of compiling on every start.
 * The cache is read before the run and written, when it was missing or refused, only once the
 * process exits (or after a while, for servers), never before the first request.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheProfile, codeCacheFile, compileCached } from './code-cache.js';
import { codeCacheDir, enableCompileCache } from './compile-cache.js';
import type { EsmHost } from './esm-host.js';

/** The bundle's content hash, set by scripts/bundle.mjs when it builds this entry. */
declare const SKATE_CLI_BUNDLE_HASH: string;

/** A long-running command (serve, acp, the terminal UI) saves its cache after this long. */
const SAVE_AFTER_MS = 10_000;

enableCompileCache();
const argv = process.argv.slice(2);
const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), 'skate-cli.js');
const script = compileCached(
  bundle,
  codeCacheFile(codeCacheDir(), SKATE_CLI_BUNDLE_HASH, cacheProfile(argv)),
);
if (script.cache !== 'hit') {
  // Only after a run that succeeded: one refused early (a bad flag) compiled little of its path,
  // and its cache would leave every later run of that kind compiling the rest.
  process.once('exit', (code) => {
    if (code === 0) script.save();
  });
  setTimeout(() => script.save(), SAVE_AFTER_MS).unref();
}
const cli = script.run(createRequire(bundle)) as {
  runCli(argv: string[], host: EsmHost): Promise<number>;
};
// Ink uses top-level await, which CommonJS cannot hold: it stays an ES module, loaded on demand.
void cli
  .runCli(argv, { loadTuiVendor: () => import('./tui-vendor.js'), codeCache: script.cache })
  .then((code) => {
    process.exitCode = code;
  });
