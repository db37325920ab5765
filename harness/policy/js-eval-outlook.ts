import { createRequire } from 'node:module';
import { type JsEvalRuntime, jsEvalRuntime } from '../../shared/js-eval-runtime.js';

// Executors run on this process's Node and load from this install's node_modules.
const nodeRequire = createRequire(import.meta.url);

/** js_eval's runtime as an executor started from this install will find it (without loading it). */
export function jsEvalOutlook(): JsEvalRuntime {
  return jsEvalRuntime(process.versions.node, (name) => nodeRequire.resolve(name));
}
