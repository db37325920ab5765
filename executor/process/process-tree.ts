import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Environment variable set on every command so its processes can be found after they leave its group. */
export const COMMAND_MARKER_VAR = 'SKATE_COMMAND_ID';

/** How to recognise a command's processes: its leader's pid (also its group and session id) and its marker. */
export interface CommandTree {
  readonly pid: number;
  readonly marker: string;
}

const POLL_MS = 25;
/** How long to keep sending SIGKILL to a tree that is still forking. */
const KILL_ROUNDS = 40;

/**
 * Kills every process of a command: SIGTERM, up to `graceMs` for them to go,
 * then SIGKILL until none is left. Resolves once they are gone (or, for a tree
 * that will not die, after the last round).
 *
 * The process group catches ordinary children. A process that left the group
 * (`setsid`, a double-forking daemon) is found through /proc: by session, by
 * parentage, or by the marker variable it inherited, as Jenkins' process tree
 * killer does with BUILD_ID. Only a pid namespace is airtight (a process can
 * clear its environment); that belongs to the kernel sandbox layer.
 */
export async function killCommandTree(tree: CommandTree, graceMs: number): Promise<void> {
  const seen = new Map<string, boolean>();
  signalAll(tree, (await survivors(tree, seen)) ?? [], 'SIGTERM');
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await sleep(POLL_MS);
    if ((await survivors(tree, seen)) === undefined) return;
  }
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const left = await survivors(tree, seen);
    if (left === undefined) return;
    signalAll(tree, left, 'SIGKILL');
    await sleep(POLL_MS);
  }
}

/** The command's live processes, or undefined when none is left. */
async function survivors(tree: CommandTree, seen: Map<string, boolean>): Promise<number[] | undefined> {
  const found = await findCommandProcesses(tree, seen);
  // Without procfs only the group can be probed; it also counts zombies nobody has reaped yet.
  if (found === null) return groupExists(tree.pid) ? [] : undefined;
  return found.length > 0 ? found : undefined;
}

function signalAll(tree: CommandTree, pids: readonly number[], signal: NodeJS.Signals): void {
  trySignal(-tree.pid, signal);
  for (const pid of pids) trySignal(pid, signal);
}

function trySignal(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // ESRCH: already gone.
  }
}

function groupExists(pgid: number): boolean {
  return trySignal(-pgid, 0);
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  key: string;
}

/**
 * Live (non-zombie) processes belonging to a command, read from /proc; null
 * without procfs. `seen` caches the marker check per process start, since
 * environments do not change. Zombies are left out: on some machines pid 1
 * reaps orphans late, and a zombie holds nothing.
 */
export async function findCommandProcesses(
  tree: CommandTree,
  seen: Map<string, boolean> = new Map(),
): Promise<number[] | null> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return null;
  }
  const stats = (await Promise.all(names.filter(isPid).map(readStat))).filter(
    (stat): stat is ProcStat => stat !== undefined && stat.pid !== process.pid,
  );
  const needle = `${COMMAND_MARKER_VAR}=${tree.marker}\0`;
  const found = new Set<number>();
  await Promise.all(
    stats.map(async (stat) => {
      if (stat.pgrp === tree.pid || stat.session === tree.pid) {
        found.add(stat.pid);
        return;
      }
      let marked = seen.get(stat.key);
      if (marked === undefined) {
        marked = await hasMarker(stat.pid, needle);
        seen.set(stat.key, marked);
      }
      if (marked) found.add(stat.pid);
    }),
  );
  // Children of a found process belong to the command too, whatever their group or environment.
  const children = new Map<number, number[]>();
  for (const stat of stats) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  const queue = [...found];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return [...found];
}

function isPid(name: string): boolean {
  const code = name.charCodeAt(0);
  return code >= 48 && code <= 57;
}

async function readStat(name: string): Promise<ProcStat | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${name}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses; fields resume after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return undefined;
  return {
    pid: Number(name),
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    // Field 22, start time: a recycled pid is a different process.
    key: `${name}:${fields[19]}`,
  };
}

async function hasMarker(pid: number, needle: string): Promise<boolean> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1');
    return `${environ}\0`.includes(needle);
  } catch {
    return false; // Gone, or not ours to read.
  }
}
