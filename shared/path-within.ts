/**
 * True when `child` is `root` or lies beneath it. Both are absolute,
 * normalised paths; `/ws2` is not within `/ws`.
 */
export function isWithin(root: string, child: string): boolean {
  if (root === '/') return true;
  return child === root || child.startsWith(root.endsWith('/') ? root : `${root}/`);
}
