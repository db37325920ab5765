import path from 'node:path';
import picomatch from 'picomatch';
import { isGlob } from './path-patterns.js';
import { isWithin } from './path-within.js';

/**
 * How one policy path entry (a plain path or a glob) matches real paths, written once for the
 * executor's tools (`executor/path-guard.ts`) and for the files the harness reads on an agent's
 * behalf, so both deny exactly the same paths. Pure: no I/O.
 */
export type Matcher = (candidate: string) => boolean;

export interface Rule {
  /** The rule applied to a path and all its ancestors. */
  readonly matches: Matcher;
  /** A glob's test of one path, ancestors not included; absent for a plain path. */
  readonly glob?: Matcher;
  /** The directory everything the rule can match lies in ('' when unknown). */
  readonly base: string;
  /** How the name of anything a glob matches starts, when the glob says so for certain. */
  readonly namePrefix?: string | undefined;
}

/** The rule of one entry: a plain path covers itself and what lies beneath; a glob what it matches, and beneath. */
export function ruleFor(pattern: string): Rule {
  if (!isGlob(pattern)) return { matches: (candidate) => isWithin(pattern, candidate), base: pattern };
  const glob = picomatch(pattern, { dot: true });
  const base = picomatch.scan(pattern).base;
  const prefix = namePrefix(pattern);
  // Whatever the glob matches, the path or an ancestor, has a name the path shows after a `/`.
  const needle = prefix === undefined ? '' : `/${prefix}`;
  // A glob denies what it matches and everything beneath a matching directory.
  const matches = (candidate: string): boolean => {
    if (!candidate.includes(needle)) return false;
    for (let p = candidate; ; p = path.dirname(p)) {
      if (glob(p)) return true;
      if (p === '/') return false;
    }
  };
  return { matches, glob, base: path.isAbsolute(base) ? base : '', namePrefix: prefix };
}

/**
 * The literal start of a glob's last segment (`.env.` of `.env.!(example)`), which every name it
 * matches begins with; undefined when unsure: a negated glob, escapes, or a group or class before
 * the last `/` (which might then sit inside it).
 */
function namePrefix(pattern: string): string | undefined {
  const cut = pattern.lastIndexOf('/');
  if (pattern.startsWith('!') || /[{}()[\]\\]/.test(pattern.slice(0, cut + 1))) return undefined;
  const literal = /^[^*?[\]{}()!+@\\]*/.exec(pattern.slice(cut + 1))![0];
  return literal === '' ? undefined : literal;
}
