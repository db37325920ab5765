import type * as z from 'zod';
import { SettingsFile } from '../../shared/settings.js';
import type { ReadBounds, WorkspaceFile } from '../workspace-files/read-workspace-file.js';
import { SettingsError } from './settings-error.js';

/** Settings files are small; anything larger is a mistake, not settings. */
export const SETTINGS_BOUNDS: ReadBounds = { maxBytes: 256 * 1024, overflow: 'refuse' };

/**
 * Validates one settings file as read (`readUserFile`, or `readWorkspaceFile` for the workspace's,
 * with `SETTINGS_BOUNDS`); undefined when it does not exist. A refused file is an error naming it,
 * and never shows its bytes: a settings file that leads to a key must not print the key's start.
 */
export function parseSettingsFile(file: string, read: WorkspaceFile): SettingsFile | undefined {
  if (read.status === 'missing') return undefined;
  if (read.status === 'refused') throw new SettingsError(file, undefined, read.message);
  let raw: unknown;
  try {
    raw = JSON.parse(read.data.toString('utf8'));
  } catch (error) {
    throw new SettingsError(file, undefined, `is not valid JSON (${(error as Error).message})`);
  }
  const parsed = SettingsFile.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw settingsProblem(file, parsed.error);
}

/** The first problem zod found, as file, key and a sentence. */
function settingsProblem(file: string, error: z.ZodError): SettingsError {
  const issue = error.issues[0];
  if (!issue) return new SettingsError(file, undefined, 'is not valid');
  if (issue.code === 'unrecognized_keys' && issue.path.length > 0) {
    // Inside a key (hooks' events, a hook's fields): named with its whole path.
    const where = issue.path.map(String).join('.');
    return new SettingsError(file, issue.keys.map((key) => `${where}.${key}`).join(', '), 'unknown key');
  }
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(SettingsFile.shape).filter((key) => key !== '$schema');
    return new SettingsError(file, issue.keys.join(', '), `unknown key (known keys: ${known.join(', ')})`);
  }
  if (issue.path.length === 0)
    return new SettingsError(file, undefined, `must be a JSON object (${issue.message})`);
  return new SettingsError(file, issue.path.map(String).join('.'), issue.message);
}
