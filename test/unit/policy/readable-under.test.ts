import path from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { PathGuard } from '../../../executor/path-guard.js';
import { isGlob } from '../../../shared/path-patterns.js';
import { isWithin } from '../../../shared/path-within.js';
import { testPolicy } from '../../support/policies.js';

// Paths and rules that keep landing on each other: plain paths, globs with and without a base.
const DIRS = ['/', '/ws', '/ws/src', '/ws/src/a', '/ws/.git', '/ws2', '/ws/node_modules/pkg', '/etc/ssh'];
const NAMES = [
  'main.ts',
  '.env',
  '.env.example',
  '.env.local',
  '.envrc',
  'key',
  'ssh_host_rsa_key',
  'src',
  'a',
  'b',
];
const RULES = [
  '/ws/src',
  '/ws/src/a',
  '/ws2',
  '/ws/.env',
  '/etc/ssh/ssh_host_*_key',
  '/ws/**/.env',
  '/ws/**/.env.!(example|sample|template)',
  '**/key',
  '/ws/*/a',
  '/ws/node_modules/**',
  // Where a glob's last segment does not say how names start: a group spanning `/`, a negation.
  '/ws/{src/a,b}',
  '/ws/{src,x}/.env*',
  '/ws/**/.env*',
  '!/ws/**/key',
  '/ws/src/@(a|key)',
];
const ALLOW = ['/', '/ws', '/ws/src', '/ws2', '/etc'];

/** The rules read literally: a path is denied when a rule matches it or any of its ancestors. */
function reference(allow: readonly string[], deny: readonly string[], real: string): boolean {
  const ancestors: string[] = [];
  for (let p = real; ; p = path.dirname(p)) {
    ancestors.push(p);
    if (p === '/') break;
  }
  const denied = deny.some((rule) =>
    isGlob(rule) ? ancestors.some((p) => picomatch(rule, { dot: true })(p)) : isWithin(rule, real),
  );
  return allow.some((root) => isWithin(root, real)) && !denied;
}

describe('PathGuard.readable and readableUnder', () => {
  it('agree with the rules read literally, whatever the rules, the path and the directory searched', () => {
    fc.assert(
      fc.property(
        fc.subarray(RULES),
        fc.subarray(ALLOW, { minLength: 1 }),
        fc.constantFrom(...DIRS),
        fc.array(fc.tuple(fc.constantFrom(...DIRS), fc.array(fc.constantFrom(...NAMES), { maxLength: 3 })), {
          minLength: 1,
          maxLength: 20,
        }),
        (deny, allow, dir, paths) => {
          const guard = new PathGuard(testPolicy('/ws', { read: { allow, deny } }));
          const readable = guard.readableUnder(dir);
          for (const [base, names] of paths) {
            const real = [base === '/' ? '' : base, ...names].join('/') || '/';
            expect(guard.readable(real), real).toBe(reference(allow, deny, real));
            // readableUnder takes paths relative to `dir`, and only those beneath it.
            if (!isWithin(dir, real)) continue;
            const relative = real === dir ? '' : real.slice(dir === '/' ? 1 : dir.length + 1);
            expect(readable(relative), `${relative} under ${dir}`).toBe(guard.readable(real));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
