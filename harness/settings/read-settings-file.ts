import { readFile } from 'node:fs/promises';
import type * as z from 'zod';
import { SettingsFile } from '../../shared/settings.js';
import { SettingsError } from './settings-error.js';

/** Settings files are small; anything larger is a mistake, not settings. */
const MAX_BYTES = 256 * 1024;

/** Reads and validates one settings file; undefined when it does not exist. */
export async function readSettingsFile(file: string): Promise<SettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new SettingsError(file, undefined, `cannot be read (${code ?? (error as Error).message})`);
  }
  if (text.length > MAX_BYTES) throw new SettingsError(file, undefined, `is larger than ${MAX_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
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
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(SettingsFile.shape).filter((key) => key !== '$schema');
    return new SettingsError(file, issue.keys.join(', '), `unknown key (known keys: ${known.join(', ')})`);
  }
  if (issue.path.length === 0)
    return new SettingsError(file, undefined, `must be a JSON object (${issue.message})`);
  return new SettingsError(file, issue.path.map(String).join('.'), issue.message);
}
