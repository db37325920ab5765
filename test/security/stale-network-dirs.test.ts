import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  NETWORK_DIR_PREFIX,
  OWNER_FILE_NAME,
  sweepStaleNetworkDirs,
} from '../../harness/network/stale-network-dirs.js';
import { distPath } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, isAlive } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const sleeping: FakeReply = {
  type: 'message',
  blocks: [{ type: 'tool_use', id: 'tu_sleep', name: 'shell', input: { command: 'sleep 60' } }],
  stopReason: 'tool_use',
};
const done: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] };

/** The network directories under `root`, by name, with the harness pid each records. */
async function ownedDirs(root: string): Promise<Map<string, number>> {
  const owned = new Map<string, number>();
  for (const name of await readdir(root)) {
    if (!name.startsWith(NETWORK_DIR_PREFIX)) continue;
    const text = await readFile(path.join(root, name, OWNER_FILE_NAME), 'utf8').catch(() => '');
    const pid = Number(text.split(' ')[0]);
    if (pid > 0) owned.set(name, pid);
  }
  return owned;
}

describe('network directories a killed harness left behind', () => {
  it('the next start removes a SIGKILLed harness’s directory, keeps a live one’s, and follows no link', async () => {
    // The harnesses' temp dir (TMPDIR): theirs alone, so the sweep is seen on its own.
    await using root = await tempDir('stale-net-root-');
    await using home = await hostDir('stale-net-home-');
    await using ws = await hostDir('stale-net-ws-');
    await using target = await hostDir('stale-net-target-');
    // What a followed link would reach: a directory that looks stale itself, and a file to keep.
    await writeFile(path.join(target.path, OWNER_FILE_NAME), '4194304 1\n');
    await writeFile(path.join(target.path, 'keep.txt'), 'mine');
    await using api = await fakeMessagesApi([sleeping, sleeping, done]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      TMPDIR: root.path,
      ANTHROPIC_API_KEY: 'sk-ant-test-key-for-stale-dirs',
      ANTHROPIC_BASE_URL: api.url,
    };
    delete env.XDG_CACHE_HOME;
    const args = ['-p', 'wait', '--workspace', ws.path, '--network', 'on', '--approval', 'auto'];
    const started: ChildProcess[] = [];
    /** A harness waiting in its `sleep 60`; resolves to its pid as its network directory records it. */
    const waitingHarness = async (): Promise<{ name: string; pid: number }> => {
      const before = await ownedDirs(root.path);
      const child = spawn(process.execPath, [distPath('cli', 'skate.js'), ...args], {
        env,
        detached: true,
        stdio: 'ignore',
      });
      started.push(child);
      const requests = api.requests.length;
      let found: { name: string; pid: number } | undefined;
      const ready = await eventually(async () => {
        for (const [name, pid] of await ownedDirs(root.path)) if (!before.has(name)) found = { name, pid };
        return found !== undefined && api.requests.length > requests;
      }, 30_000);
      expect(ready).toBe(true);
      if (!found) throw new Error('no network directory appeared');
      return found;
    };
    try {
      const live = await waitingHarness();
      const killed = await waitingHarness();
      process.kill(killed.pid, 'SIGKILL');
      expect(await eventually(async () => !(await isAlive(killed.pid)), 10_000)).toBe(true);
      // SIGKILL skips every exit handler: the directory is still there.
      expect(existsSync(path.join(root.path, killed.name))).toBe(true);

      // Planted beside them: a link named like one, to a directory that looks stale; a stale
      // directory holding a link to it; a live pid with another start time (a reused pid); one with no owner.
      await symlink(target.path, path.join(root.path, `${NETWORK_DIR_PREFIX}link`));
      const stale = path.join(root.path, `${NETWORK_DIR_PREFIX}stale`);
      await mkdir(stale);
      await writeFile(path.join(stale, OWNER_FILE_NAME), '4194304 1\n');
      await symlink(target.path, path.join(stale, 'inside'));
      const reused = path.join(root.path, `${NETWORK_DIR_PREFIX}reused`);
      await mkdir(reused);
      await writeFile(path.join(reused, OWNER_FILE_NAME), `${live.pid} 1\n`);
      const unowned = path.join(root.path, `${NETWORK_DIR_PREFIX}unowned`);
      await mkdir(unowned);

      // The next start with a network sweeps before it makes its own directory.
      const next = await runCli(args, { env, timeoutMs: 60_000 });
      expect(next.code, next.stderr).toBe(0);

      expect(existsSync(path.join(root.path, killed.name))).toBe(false);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(reused)).toBe(false);
      // Kept: the live harness's, the one nobody owns, and the link (not followed: its target is whole).
      expect(existsSync(path.join(root.path, live.name, OWNER_FILE_NAME))).toBe(true);
      expect(existsSync(unowned)).toBe(true);
      expect((await lstat(path.join(root.path, `${NETWORK_DIR_PREFIX}link`))).isSymbolicLink()).toBe(true);
      expect(await readFile(path.join(target.path, 'keep.txt'), 'utf8')).toBe('mine');
      expect(existsSync(path.join(target.path, OWNER_FILE_NAME))).toBe(true);
      // The run that swept released its own directory on its way out: the live one's is left (and the link).
      expect([...(await ownedDirs(root.path)).keys()].sort()).toEqual(
        [live.name, `${NETWORK_DIR_PREFIX}link`].sort(),
      );
    } finally {
      for (const child of started) {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  }, 120_000);

  it('leaves what is not plainly its own: another user’s directory, a directory inside, an owner record that is a link', async () => {
    await using root = await tempDir('stale-net-odd-');
    await using target = await hostDir('stale-net-odd-target-');
    await writeFile(path.join(target.path, 'record'), '4194304 1\n');
    const dead = async (name: string): Promise<string> => {
      const dir = path.join(root.path, `${NETWORK_DIR_PREFIX}${name}`);
      await mkdir(dir);
      await writeFile(path.join(dir, OWNER_FILE_NAME), '4194304 1\n');
      return dir;
    };
    const others = await dead('others');
    if (process.getuid?.() === 0) await chown(others, 65534, 65534);
    const nested = await dead('nested');
    await mkdir(path.join(nested, 'sub'));
    await writeFile(path.join(nested, 'sub', 'kept.txt'), 'kept');
    const linkedOwner = path.join(root.path, `${NETWORK_DIR_PREFIX}linked`);
    await mkdir(linkedOwner);
    await symlink(path.join(target.path, 'record'), path.join(linkedOwner, OWNER_FILE_NAME));
    const plain = await dead('plain');

    expect(await sweepStaleNetworkDirs(root.path)).toEqual([plain]);
    if (process.getuid?.() === 0) expect(existsSync(path.join(others, OWNER_FILE_NAME))).toBe(true);
    expect(await readFile(path.join(nested, 'sub', 'kept.txt'), 'utf8')).toBe('kept');
    expect((await lstat(path.join(linkedOwner, OWNER_FILE_NAME))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(target.path, 'record'), 'utf8')).toBe('4194304 1\n');
  });
});
