import module from 'node:module';

/**
 * Node ≥ 22.1 can keep V8's compiled code for modules on disk (in the OS temp folder, or
 * NODE_COMPILE_CACHE) and reuse it on the next start, which skips most of the CLI's own compile
 * time. Imported first by the CLI entry, so every chunk loaded after it is cached. Older Node
 * lacks the function and this does nothing; a failure to write the cache only costs the saving.
 */
const nodeModule = module as { enableCompileCache?: () => unknown };
try {
  nodeModule.enableCompileCache?.();
} catch {
  // A read-only temp folder, say: start without the cache.
}
