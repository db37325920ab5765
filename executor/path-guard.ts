import { realpathSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { isGlob } from '../shared/path-patterns.js';
import { isWithin } from '../shared/path-within.js';
import type { ResolvedPolicy } from '../shared/policy.js';
import { ToolFailure } from './tool-failure.js';

/** Kernel interfaces: they look like files but reading or writing them acts on processes and devices. */
const MAGIC_ROOTS = ['/proc', '/sys', '/dev'];

type Matcher = (candidate: string) => boolean;

function matcherFor(pattern: string): Matcher {
  if (!isGlob(pattern)) return (candidate) => isWithin(pattern, candidate);
  const match = picomatch(pattern, { dot: true });
  // A glob denies what it matches and everything beneath a matching directory.
  return (candidate) => {
    for (let p = candidate; ; p = path.dirname(p)) {
      if (match(p)) return true;
      if (p === '/') return false;
    }
  };
}

/**
 * Resolves a path to its real location even when its last components do not exist yet.
 * Synchronous: the native realpath(3) is ~5 µs here against ~30 µs for a thread-pool round trip
 * (the same call), a fifth of a whole small read_file.
 */
export function realpathDeep(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The policy as file tools see it: resolves real paths and explains denials in
 * words a model can act on. The kernel sandbox is the guarantee; this layer
 * exists for clear messages and for executors running without one.
 */
export class PathGuard {
  private readonly readDeny: Matcher[];
  private readonly protectedPaths: Matcher[];

  constructor(private readonly policy: ResolvedPolicy) {
    this.readDeny = policy.read.deny.map(matcherFor);
    this.protectedPaths = policy.protected.map(matcherFor);
  }

  /** Absolute form of a model-supplied path, relative to the workspace. */
  absolute(input: string): string {
    return path.resolve(this.policy.workspace, input);
  }

  async forRead(input: string): Promise<string> {
    const real = this.resolve(input, 'read');
    this.checkReadable(input, real);
    return real;
  }

  async forWrite(input: string): Promise<string> {
    const real = this.resolve(input, 'write');
    this.checkReadable(input, real);
    const name = this.policy.name;
    if (!this.policy.write.allow.some((root) => isWithin(root, real))) {
      const roots = this.policy.write.allow.length > 0 ? this.policy.write.allow.join(', ') : 'none';
      throw new ToolFailure(
        'denied',
        `write denied by policy "${name}": ${shown(input, real)} is outside the writable paths [${roots}]`,
      );
    }
    // A protected path guards writable roots that contain it; a write root granted inside a
    // protected directory (the plan file inside .skate) is the more specific rule and wins.
    const roots = this.policy.write.allow.filter((root) => isWithin(root, real));
    const hit = this.policy.protected.find(
      (pattern, i) =>
        this.protectedPaths[i]!(real) && roots.some((root) => isGlob(pattern) || isWithin(root, pattern)),
    );
    if (hit !== undefined) {
      throw new ToolFailure(
        'denied',
        `write denied by policy "${name}": ${shown(input, real)} is protected (${hit}); it stays read-only`,
      );
    }
    return real;
  }

  /** Whether a real path may be read, for tools that walk trees and skip what they may not show. */
  readable(real: string): boolean {
    return (
      this.policy.read.allow.some((root) => isWithin(root, real)) && !this.readDeny.some((deny) => deny(real))
    );
  }

  private checkReadable(input: string, real: string): void {
    const name = this.policy.name;
    if (!this.policy.read.allow.some((root) => isWithin(root, real))) {
      throw new ToolFailure(
        'denied',
        `read denied by policy "${name}": ${shown(input, real)} is outside the readable paths [${this.policy.read.allow.join(', ')}]`,
      );
    }
    const hit = this.policy.read.deny.find((_, i) => this.readDeny[i]!(real));
    if (hit !== undefined) {
      throw new ToolFailure(
        'denied',
        `read denied by policy "${name}": ${shown(input, real)} matches the denied path ${hit}`,
      );
    }
  }

  private resolve(input: string, access: 'read' | 'write'): string {
    if (input.includes('\0')) throw new ToolFailure('invalid_input', 'path contains a NUL byte');
    const absolute = this.absolute(input);
    const real = realpathDeep(absolute);
    for (const candidate of [absolute, real]) {
      const root = MAGIC_ROOTS.find((magic) => isWithin(magic, candidate));
      if (root) {
        throw new ToolFailure(
          'denied',
          `${access} denied: ${shown(input, real)} is under ${root}, a kernel interface, not a file; file tools do not touch it`,
        );
      }
    }
    return real;
  }
}

function shown(input: string, real: string): string {
  return input === real ? real : `${input} (${real})`;
}
