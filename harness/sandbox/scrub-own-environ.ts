import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { carriesSecret, isKnownSecret } from '../../shared/known-secrets.js';

/**
 * Blanks the values of the harness's credentials (and of any variable carrying one) in the
 * environment block it was started with, the memory `/proc/<pid>/environ` shows, keeping them in
 * `process.env`. Without a sandbox
 * (`full`, `--sandbox best-effort`) a command runs as the same user, and Landlock stops it from
 * attaching to the harness but not from reading that file. Linux only; anywhere it cannot be done
 * (no /proc, a kernel that refuses writes to /proc/self/mem) nothing changes and nothing fails.
 */
export function scrubOwnEnviron(
  isSecret: (name: string) => boolean = (name) => isKnownSecret(name),
  heldValues: ReadonlySet<string> = new Set(),
): void {
  try {
    const values = new Set(heldValues);
    for (const [name, value] of Object.entries(process.env)) {
      if (value && isSecret(name)) values.add(value);
    }
    if (values.size === 0) return;
    const entries = readFileSync('/proc/self/environ').toString('latin1').split('\0');
    const start = environStart();
    let offset = 0;
    let mem: number | undefined;
    try {
      for (const entry of entries) {
        const at = entry.indexOf('=');
        const name = entry.slice(0, at);
        const value = entry.slice(at + 1);
        const blanked = /^\**$/.test(value);
        if (at > 0 && !blanked && (isSecret(name) || carriesSecret(value, values))) {
          // A copy of our own first (setenv): the environment then no longer points into the block.
          const current = process.env[name];
          if (current !== undefined) process.env[name] = current;
          mem ??= openSync('/proc/self/mem', 'r+');
          const blank = Buffer.alloc(Buffer.byteLength(value, 'latin1'), '*');
          writeSync(mem, blank, 0, blank.length, start + offset + at + 1);
        }
        offset += Buffer.byteLength(entry, 'latin1') + 1;
      }
    } finally {
      if (mem !== undefined) closeSync(mem);
    }
  } catch {
    // Not Linux, or /proc/self/mem is not writable here: the residual risk stays as documented.
  }
}

/** `env_start` (field 50 of /proc/self/stat): where the block `/proc/self/environ` shows begins. */
function environStart(): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  // Fields after the command name, which may hold spaces, start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[50 - 3]);
  if (!Number.isSafeInteger(start) || start <= 0) throw new Error('no env_start in /proc/self/stat');
  return start;
}
