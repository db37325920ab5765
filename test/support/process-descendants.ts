import { readdir, readFile } from 'node:fs/promises';

/** Pids of every live process below `pid` on the host, found through /proc. */
export async function processDescendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parents.set(Number(entry), Number(fields[1]));
    } catch {
      // Gone while we looked.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const [child, parent] of parents) {
      if (parent === next) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** The command line of a host process, arguments joined by spaces; empty when it is gone. */
export async function commandLine(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}
