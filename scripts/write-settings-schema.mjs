// Writes sandbox-policies/settings.schema.json from the SettingsFile zod schema (the compiled one
// in dist/, so run `npm run build` first), so editors check ~/.skate/settings.json and
// .skate/settings.json as they are typed. A unit test (test/unit/settings/settings-schema.test.ts)
// compares it with the committed file, so the two cannot drift.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const { settingsJsonSchema } = await import('../dist/shared/settings.js');
const target = fileURLToPath(new URL('../sandbox-policies/settings.schema.json', import.meta.url));
await writeFile(target, `${JSON.stringify(settingsJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
