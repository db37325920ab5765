/** The ES-module-only packages of the terminal UI, as the bin (dist/cli/skate.js) loads them. */
export type TuiVendor = typeof import('./tui-vendor.js');

/**
 * What the bin (dist/cli/skate.js) hands to the CLI it runs from a CommonJS bundle: a real
 * `import()` of what cannot be CommonJS. Without a host (tsc's output, the tests) every
 * import is an ordinary one and there is nothing to preload.
 */
export interface EsmHost {
  loadTuiVendor(): Promise<TuiVendor>;
  /** How the bundle was compiled (for SKATE_TRACE_START). */
  codeCache: 'hit' | 'miss' | 'rejected';
}

let host: EsmHost | undefined;
let vendor: TuiVendor | undefined;

/** Set once by the CLI entry when it runs from the bundle. */
export function setEsmHost(value: EsmHost): void {
  host = value;
}

/** Loads Ink and React before the terminal UI's modules need them (a no-op outside the bundle). */
export async function preloadTuiVendor(): Promise<void> {
  if (host && !vendor) vendor = await host.loadTuiVendor();
}

/**
 * Ink and React for the bundle's stand-in modules `ink`, `react` and `react/jsx-runtime`
 * (scripts/bundle.mjs); they are evaluated only after `preloadTuiVendor()`.
 */
export function tuiVendor(): TuiVendor {
  if (!vendor) throw new Error('the terminal UI was loaded before its ES modules (preloadTuiVendor)');
  return vendor;
}
