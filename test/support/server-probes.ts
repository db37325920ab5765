import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/** How many sockets a host process holds open (its fds that are sockets): listening, connected, half-open. */
export async function socketCount(pid: number): Promise<number> {
  let count = 0;
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.startsWith('socket:')) count++;
  }
  return count;
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM), in MiB; zeros when it is gone. */
export async function memoryMiB(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Every file and directory below `dir` (relative paths, sorted) with its size and mtime, to compare before and after. */
export async function treeSnapshot(dir: string, skip: readonly string[] = []): Promise<string[]> {
  const entries: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const names = await readdir(path.join(dir, relative)).catch(() => [] as string[]);
    for (const name of names) {
      const child = path.join(relative, name);
      if (skip.includes(child)) continue;
      const info = await lstat(path.join(dir, child)).catch(() => undefined);
      if (!info) continue;
      entries.push(`${child}${info.isDirectory() ? '/' : ` ${info.size} ${info.mtimeMs}`}`);
      if (info.isDirectory()) await walk(child);
    }
  };
  await walk('');
  return entries.sort();
}
