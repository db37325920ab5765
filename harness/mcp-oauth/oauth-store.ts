import { constants } from 'node:fs';
import { open, realpath, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { McpOAuthEntry, McpOAuthFile } from '../../shared/mcp-oauth.js';
import { OpenedDir } from '../opened-dir.js';
import { readUserFile } from '../workspace-files/read-workspace-file.js';

const STORE_BOUNDS = { maxBytes: 1024 * 1024, overflow: 'refuse' } as const;
/** The directory every sandbox sees empty (see `prepareSandbox`), under `~/.skate`. */
export const MCP_AUTH_DIR = 'mcp-auth';
const STORE_FILE = 'tokens.json';

/** `~/.skate/mcp-auth`: hidden in every sandbox, whatever the policy. */
export function mcpAuthDir(home: string = homedir()): string {
  return path.join(home, '.skate', MCP_AUTH_DIR);
}

/**
 * Remote MCP servers' logins (tokens, client registrations, discovered metadata), keyed by the
 * server's URL: the user's credentials, like a provider key, kept in the harness.
 */
export interface OAuthStore {
  get(url: string): Promise<McpOAuthEntry | undefined>;
  /** Changes (or creates) the entry of `url`. */
  update(url: string, server: string, change: (entry: McpOAuthEntry) => McpOAuthEntry): Promise<void>;
  /** Forgets `url`'s login; whether there was one. */
  remove(url: string): Promise<boolean>;
}

export function createOAuthStore(home: string = homedir()): OAuthStore {
  const file = path.join(mcpAuthDir(home), STORE_FILE);
  const load = async (): Promise<McpOAuthEntry[]> => {
    const read = await readUserFile(file, STORE_BOUNDS);
    if (read.status !== 'read') return [];
    try {
      const parsed = McpOAuthFile.safeParse(JSON.parse(read.data.toString('utf8')));
      return parsed.success ? parsed.data.entries : [];
    } catch {
      // A damaged file holds no login: `skate mcp login` again is the way back.
      return [];
    }
  };
  return {
    async get(url) {
      return (await load()).find((entry) => entry.url === url);
    },
    async update(url, server, change) {
      const entries = await load();
      const index = entries.findIndex((entry) => entry.url === url);
      const next = McpOAuthEntry.parse(change(entries[index] ?? { url, server }));
      if (index >= 0) entries[index] = next;
      else entries.push(next);
      await save(home, { version: 1, entries });
    },
    async remove(url) {
      const entries = await load();
      const kept = entries.filter((entry) => entry.url !== url);
      if (kept.length === entries.length) return false;
      await save(home, { version: 1, entries: kept });
      return true;
    },
  };
}

/**
 * Makes `~/.skate/mcp-auth` (0700) when `~/.skate` exists, from the opened home, never through a
 * link: it must exist before a sandbox starts to be hidden there, or a login made while that
 * sandbox runs would show in it. Where it cannot be made (no home, a link in the way), the store
 * cannot be written either (`save` refuses the same things), so there is nothing to hide.
 */
export async function ensureMcpAuthDir(home: string = homedir()): Promise<boolean> {
  try {
    await using root = await OpenedDir.open(await realpath(home));
    const { dir: skateDir } = await root.dir('.skate', { create: false });
    await using skate = skateDir;
    const { dir } = await skate.dir(MCP_AUTH_DIR, { create: true, mode: 0o700 });
    await dir.close();
    return true;
  } catch {
    // See above: nothing of ours can be there.
    return false;
  }
}

/** Written whole (a temporary file, then a rename), mode 0600, from the opened `~/.skate/mcp-auth`. */
async function save(home: string, content: McpOAuthFile): Promise<void> {
  await using root = await OpenedDir.open(await realpath(home));
  const { dir: skateDir } = await root.dir('.skate', { create: true });
  await using skate = skateDir;
  const { dir: authDir } = await skate.dir(MCP_AUTH_DIR, { create: true, mode: 0o700 });
  await using auth = authDir;
  const temporary = `${STORE_FILE}.${process.pid}.tmp`;
  const handle = await open(
    auth.at(temporary),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  try {
    await rename(auth.at(temporary), auth.at(STORE_FILE));
  } catch (error) {
    await rm(auth.at(temporary), { force: true });
    throw error;
  }
}
