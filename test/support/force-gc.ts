import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full (mark-compact) garbage collection now, without `--expose-gc` on the
 * command line: what a busy process does at some unpredictable moment, made
 * to happen where a test needs it.
 */
export function forceGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
