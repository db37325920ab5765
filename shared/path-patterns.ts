/**
 * How policy entries are read, written once for the harness, the executor and
 * the policy checks alike: which paths are globs, and which environment
 * allowlist entries let a variable through.
 */

/** True when a path pattern is a glob (`*`, `?`, `[…]`, `{…}`) rather than one concrete path. */
export function isGlob(pattern: string): boolean {
  return /[*?[\]{}]/.test(pattern);
}

/**
 * Whether an environment allowlist entry (`NAME`, `PREFIX*` or `*`) lets
 * `name` through; `name` may itself be an entry, which it then covers.
 */
export function envAllows(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}
