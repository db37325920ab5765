// Writes sandbox-policies/policy.schema.json from the PolicyFile zod schema (the compiled one in
// dist/, so run `npm run build` first), so editors check policy files as they are typed. The
// schema describes files as written: fields with defaults are optional. A unit test
// (test/unit/policy/policy-schema.test.ts) regenerates it the same way and fails when the
// committed file differs, so the two cannot drift.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const { PolicyFile } = await import('../dist/shared/policy.js');
const { $schema, ...rest } = z.toJSONSchema(PolicyFile, { io: 'input' });
const schema = {
  $schema,
  title: 'Skate sandbox policy',
  description: 'A sandbox policy for Skate executors; see README.md, "Security model".',
  ...rest,
};
const target = fileURLToPath(new URL('../sandbox-policies/policy.schema.json', import.meta.url));
await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${target}`);
