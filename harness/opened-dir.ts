import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Names resolve relative to an open descriptor through `/proc/self/fd/N/NAME`: Node's stand-in
 * for openat(2), which it lacks. Without /proc (not Linux) names resolve by path, and a sandbox
 * swapping a directory for a symlink meanwhile can redirect a create: there is no kernel sandbox
 * there either (best effort).
 */
const VIA_PROC = process.platform === 'linux' && existsSync('/proc/self/fd');
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path an open descriptor stands for now; `(deleted)` when it was removed. */
export function descriptorPath(fd: number): Promise<string> {
  return readlink(`/proc/self/fd/${fd}`);
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
    throw new Error(`not a single file name: ${JSON.stringify(name)}`);
}

/**
 * A host directory held open, reached without following a symbolic link, and in which names are
 * resolved one at a time relative to the descriptor, never by a path a sandbox could change
 * meanwhile (swapping a directory on the way for a link elsewhere). How the harness creates what
 * a sandbox needs on the host: a sub-agent's write roots, `.skate`, the plan file.
 */
export class OpenedDir implements AsyncDisposable {
  private constructor(
    /** Where the directory was when it was opened, for messages. */
    readonly path: string,
    private readonly handle: FileHandle | undefined,
  ) {}

  /** Opens `dir` (absolute), refusing it when it is, or is reached through, a symbolic link. */
  static async open(dir: string): Promise<OpenedDir> {
    if (!VIA_PROC) {
      if (!(await lstat(dir)).isDirectory()) throw new Error(`${dir} is not a directory`);
      return new OpenedDir(dir, undefined);
    }
    const handle = await open(dir, DIR_FLAGS).catch((error: NodeJS.ErrnoException) => {
      throw refusal(dir, error);
    });
    // O_NOFOLLOW covers the last name only: the descriptor's own path tells whether one on the way was a link.
    const real = await descriptorPath(handle.fd);
    if (real !== dir) {
      await handle.close();
      throw new Error(
        `${dir} is reached through a symbolic link (it is ${real}); refusing to create anything in it`,
      );
    }
    return new OpenedDir(dir, handle);
  }

  /** The path that reaches `name` in this directory, wherever the directory has been moved since. */
  at(name: string): string {
    checkName(name);
    return this.handle ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.path, name);
  }

  /** Opens the subdirectory `name`, made first if missing (`created` says so); a symlink is refused. */
  async dir(
    name: string,
    options: { create: boolean; mode?: number },
  ): Promise<{ dir: OpenedDir; created: boolean }> {
    const where = path.join(this.path, name);
    let created = false;
    if (options.create) {
      try {
        await mkdir(this.at(name), options.mode ?? 0o755);
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    if (!this.handle) {
      if (!(await lstat(where)).isDirectory())
        throw new Error(`${where} is not a directory (a symbolic link?)`);
      return { dir: new OpenedDir(where, undefined), created };
    }
    const handle = await open(this.at(name), DIR_FLAGS).catch((error: NodeJS.ErrnoException) => {
      throw refusal(where, error);
    });
    return { dir: new OpenedDir(where, handle), created };
  }

  /**
   * Makes sure the regular file `name` exists, creating it with `content` if missing; never through
   * a symlink, never truncating a file that exists, never waiting on a FIFO. Returns whether it
   * was created.
   */
  async file(name: string, content = '', mode = 0o644): Promise<boolean> {
    const where = path.join(this.path, name);
    let handle: FileHandle;
    let created = true;
    try {
      handle = await open(this.at(name), 'wx', mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      created = false;
      handle = await open(
        this.at(name),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      ).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ELOOP' ? new Error(`${where} is a symbolic link; remove it and retry`) : error;
      });
    }
    try {
      if (!(await handle.stat()).isFile())
        throw new Error(`${where} is not a regular file; remove it and retry`);
      if (created && content !== '') await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    return created;
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function refusal(where: string, error: NodeJS.ErrnoException): Error {
  if (error.code === 'ELOOP' || error.code === 'ENOTDIR')
    return new Error(
      `${where} is a symbolic link or not a directory; refusing to create anything through it`,
    );
  return error;
}

/**
 * Creates `target` and its missing parents beneath the existing directory `root`, one name at a
 * time from the opened root, refusing any symbolic link on the way: whatever a sandbox swaps in
 * meanwhile, nothing is created outside `root`.
 */
export async function makeDirsBeneath(root: string, target: string): Promise<void> {
  const relative = path.relative(root, target);
  if (relative === '' || relative === '..' || relative.startsWith('../') || path.isAbsolute(relative))
    throw new Error(`${target} does not lie beneath ${root}`);
  let current = await OpenedDir.open(root);
  try {
    for (const name of relative.split(path.sep)) {
      const { dir } = await current.dir(name, { create: true });
      await current.close();
      current = dir;
    }
  } finally {
    await current.close();
  }
}
