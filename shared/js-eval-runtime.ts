/**
 * Which isolated-vm build js_eval loads on which Node. No single isolated-vm
 * release installs on every supported Node (5.0 does not compile against Node
 * 22+ headers, 6.x declares Node >= 22), so package.json installs one npm alias
 * per build as an optional dependency: npm skips the one whose `engines` does not
 * match, and drops one whose native build fails, without failing the install.
 * Pure data and logic; the executor (js_eval) and the CLI (`skate policy show`)
 * each resolve the package from their own location.
 */

/** One isolated-vm build, as installed under its alias name. */
export interface IsolatedVmBuild {
  /** The alias in package.json's optionalDependencies. */
  packageName: 'isolated-vm-v5' | 'isolated-vm-v6';
  /** For messages: which release and which Node lines it serves. */
  label: string;
  /** What installing it takes, for the fix of a failed install. */
  installs: string;
  /**
   * Whether the process loading it must start with `--no-node-snapshot`:
   * isolated-vm's README asks for it on Node 20 (V8's shared heap can crash an
   * isolate made from another snapshot). isolated-vm 6 on Node 22 and 24 passes
   * the js_eval tests without it, and the worker starts faster without it.
   */
  needsNoNodeSnapshot: boolean;
}

const V5: IsolatedVmBuild = {
  packageName: 'isolated-vm-v5',
  label: 'isolated-vm 5.0 (the build for Node 20)',
  installs: 'it compiles from source at install: it needs g++, make and python3',
  needsNoNodeSnapshot: true,
};
const V6: IsolatedVmBuild = {
  packageName: 'isolated-vm-v6',
  label: 'isolated-vm 6.2 (the build for Node 22 and 24)',
  installs: 'it ships prebuilt binaries for Node 22 and 24 (Linux, macOS, Windows)',
  needsNoNodeSnapshot: false,
};

/** Node majors Skate supports and tests (package.json `engines`), with the build each loads. */
const BUILD_FOR_MAJOR: Readonly<Record<number, IsolatedVmBuild>> = { 20: V5, 22: V6, 24: V6 };

/** js_eval's runtime on this machine: where it comes from, or why it cannot run and what fixes it. */
export type JsEvalRuntime =
  | { status: 'available'; build: IsolatedVmBuild; path: string }
  | { status: 'unavailable'; reason: string; fix: string };

/** The isolated-vm build for a Node version (`process.versions.node`), or undefined when none is supported. */
export function isolatedVmBuildFor(nodeVersion: string): IsolatedVmBuild | undefined {
  return BUILD_FOR_MAJOR[Number.parseInt(nodeVersion, 10)];
}

/**
 * Finds js_eval's runtime for a Node version. `resolve` is the caller's
 * `require.resolve` (it throws when the package is not installed); only
 * loading the package proves it works, which the js_eval worker does.
 */
export function jsEvalRuntime(nodeVersion: string, resolve: (name: string) => string): JsEvalRuntime {
  const build = isolatedVmBuildFor(nodeVersion);
  if (!build) {
    return {
      status: 'unavailable',
      reason: `Node ${nodeVersion} is not supported: js_eval's isolated-vm is installed for Node 20, 22 and 24 only`,
      fix: 'run Skate with Node 20, 22 or 24, then `npm install` in the Skate folder',
    };
  }
  try {
    return { status: 'available', build, path: resolve(build.packageName) };
  } catch {
    return {
      status: 'unavailable',
      reason:
        `${build.label} is not installed (the package ${build.packageName}): npm skips an optional ` +
        'dependency whose native build fails, or node_modules was installed with another Node version',
      fix:
        `run \`npm install\` in the Skate folder with this Node (${nodeVersion}); to see a build error, ` +
        `\`npm rebuild ${build.packageName} --foreground-scripts\` (${build.installs})`,
    };
  }
}
