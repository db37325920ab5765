import { spawn } from 'node:child_process';
import { distPath } from '../project-paths.js';
import { guardArgs, sandboxInit } from './mount-plan.js';
import { findOnPath, probeCached, probeCacheFile, probeKey, rememberProbe } from './probe-cache.js';

export type SandboxSupport =
  | { available: true; bwrap: string }
  | { available: false; problem: string; fix: string };

const BWRAP = 'bwrap';
/**
 * The same isolation flags every executor uses, under the create guard, which must answer one
 * O_CREAT open (seccomp user notification with SECCOMP_ADDFD_FLAG_SEND: Linux 5.14): if these
 * work, an executor can start.
 */
const PROBE_ARGS = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-net',
  '--disable-userns',
  '--cap-drop',
  'ALL',
  '--new-session',
  '--die-with-parent',
  '--as-pid-1',
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--tmpfs',
  '/tmp',
];
const PROBE_COMMAND = ['/bin/sh', '-c', ': > /tmp/probe'];

function explain(stderr: string, spawnError: string | undefined): SandboxSupport {
  if (spawnError?.includes('ENOENT')) {
    return {
      available: false,
      problem: 'bubblewrap (bwrap) is not installed',
      fix: 'install it: `sudo apt-get install bubblewrap` (or run `npm run setup`)',
    };
  }
  if (/create guard/.test(stderr)) {
    return {
      available: false,
      problem: `the create guard cannot run: ${stderr.trim()}`,
      fix: 'the kernel sandbox needs seccomp user notification with SECCOMP_ADDFD_FLAG_SEND (Linux 5.14 or newer)',
    };
  }
  if (/disable-userns|Unknown option/.test(stderr)) {
    return {
      available: false,
      problem: `this bubblewrap is too old: ${stderr.trim()}`,
      fix: 'install bubblewrap 0.8 or newer',
    };
  }
  if (/namespace|uid map|Operation not permitted|Permission denied/i.test(stderr)) {
    return {
      available: false,
      problem: `bubblewrap cannot create user namespaces: ${stderr.trim()}`,
      fix:
        'allow unprivileged user namespaces: `sudo sysctl -w kernel.unprivileged_userns_clone=1`; on Ubuntu 23.10+ also ' +
        '`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for bwrap',
    };
  }
  return {
    available: false,
    problem: `bubblewrap failed: ${stderr.trim() || spawnError}`,
    fix: 'run `bwrap --version` to investigate',
  };
}

let probed: Promise<SandboxSupport> | undefined;

/**
 * Whether bubblewrap can build an executor's sandbox on this machine; asked once per process.
 * A success is remembered in the user's cache directory for this machine, kernel and bwrap
 * binary, so a start normally runs no probe (it cost ~12 ms, in series, before every executor).
 */
export function probeSandbox(): Promise<SandboxSupport> {
  probed ??= (async () => {
    const bwrap = findOnPath(BWRAP);
    if (bwrap === undefined) return explain('', 'spawn bwrap ENOENT');
    const file = probeCacheFile();
    let key: string | undefined;
    try {
      key = probeKey(bwrap, distPath('bin', 'skate-confine'));
    } catch {}
    if (key !== undefined && (await probeCached(file, key))) return { available: true, bwrap };
    const support = await runProbe(bwrap);
    if (support.available && key !== undefined) await rememberProbe(file, key);
    return support;
  })();
  return probed;
}

function runProbe(bwrap: string): Promise<SandboxSupport> {
  const confine = distPath('bin', 'skate-confine');
  const args = [
    ...guardArgs({ deny: [], names: [], trees: [] }),
    '--',
    bwrap,
    ...PROBE_ARGS,
    // skate-confine itself may live under /tmp (an install there): shown again, as runtime paths are.
    '--ro-bind',
    confine,
    confine,
    '--',
    ...sandboxInit(confine, true),
    ...PROBE_COMMAND,
  ];
  return new Promise((resolve) => {
    // Nothing of ours but PATH (to find `true`): the probe's sandbox is a sandbox too.
    const child = spawn(confine, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', (error) =>
      resolve({
        available: false,
        problem: `cannot run ${confine}: ${error.message}`,
        fix: 'build Skate (`npm run build`), which compiles it',
      }),
    );
    child.once('close', (code) =>
      resolve(code === 0 ? { available: true, bwrap } : explain(stderr, undefined)),
    );
  });
}
