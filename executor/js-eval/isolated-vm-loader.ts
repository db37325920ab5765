import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { type IsolatedVmBuild, type JsEvalRuntime, jsEvalRuntime } from '../../shared/js-eval-runtime.js';

/** The isolated-vm module (its types come from whichever alias is installed: see tsconfig.json `paths`). */
export type IsolatedVm = typeof ivm;

/** Why js_eval cannot run here, and what fixes it. */
export interface Unavailable {
  reason: string;
  fix: string;
}

// Resolved from this file: the executor's and the worker's bundles sit in the Skate package.
const nodeRequire = createRequire(import.meta.url);

/** One line for a user or the model: why, then the fix. */
export function describeUnavailable({ reason, fix }: Unavailable): string {
  return `${reason}. To fix it, ${fix}.`;
}

/** Whether this Node has an isolated-vm build installed; resolves the package without loading it. */
export function findIsolatedVm(): JsEvalRuntime {
  return jsEvalRuntime(process.versions.node, (name) => nodeRequire.resolve(name));
}

/** Loads this Node's isolated-vm build, or says why it cannot be loaded. */
export function loadIsolatedVm(): { ivm: IsolatedVm; build: IsolatedVmBuild } | Unavailable {
  const runtime = findIsolatedVm();
  if (runtime.status === 'unavailable') return { reason: runtime.reason, fix: runtime.fix };
  const { build } = runtime;
  try {
    return { ivm: nodeRequire(runtime.path) as IsolatedVm, build };
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return {
      reason: `${build.label} is installed but does not load on Node ${process.versions.node}: ${why}`,
      fix:
        `run \`npm rebuild ${build.packageName} --foreground-scripts\` in the Skate folder with this Node, ` +
        `or \`npm install\` afresh (${build.installs})`,
    };
  }
}
