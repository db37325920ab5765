import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsJsonSchema } from '../../../shared/settings.js';

const SCHEMA_FILE = path.join(import.meta.dirname, '../../../sandbox-policies/settings.schema.json');

describe('sandbox-policies/settings.schema.json', () => {
  it('is what the SettingsFile schema generates (run `npm run build && node scripts/write-settings-schema.mjs`)', async () => {
    expect(await readFile(SCHEMA_FILE, 'utf8')).toBe(`${JSON.stringify(settingsJsonSchema(), null, 2)}\n`);
  });
});
