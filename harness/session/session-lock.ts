import { readFile, unlink, writeFile } from 'node:fs/promises';
import { SessionError } from './session-error.js';

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<session>.lock` for this process, so two harnesses never append to
 * one session (and a resume never truncates the line another is writing). A
 * lock whose process is gone (a crash) is taken over. Returns the release.
 */
export async function lockSession(file: string): Promise<() => Promise<void>> {
  const lock = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return async () => {
        await unlink(lock).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw SessionError.fromUnknown(error, lock);
    }
    const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
      throw new SessionError('in_use', `${file} is in use by process ${holder}; wait for it to finish`, file);
    }
    await unlink(lock).catch(() => {});
  }
  throw new SessionError('in_use', `${file}: could not take its lock`, file);
}
