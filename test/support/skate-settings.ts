import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `<dir>/.skate/settings.json` (a HOME's user settings or a workspace's project settings),
 * creating `.skate` if need be.
 */
export async function writeSkateSettings(dir: string, settings: unknown): Promise<void> {
  await mkdir(path.join(dir, '.skate'), { recursive: true });
  await writeFile(path.join(dir, '.skate', 'settings.json'), JSON.stringify(settings));
}
