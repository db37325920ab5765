import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Every session log of a workspace (`.skate/sessions/*`), as one string; none yet is ''. */
export async function sessionLogs(workspace: string): Promise<string> {
  const dir = path.join(workspace, '.skate', 'sessions');
  const files = await readdir(dir).catch(() => [] as string[]);
  const texts = await Promise.all(files.map((file) => readFile(path.join(dir, file), 'utf8')));
  return texts.join('\n');
}
