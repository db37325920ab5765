// Writes sandbox-policies/policy.schema.json from the PolicyFile zod schema (the compiled one in
// dist/, so run `npm run build` first), so editors check policy files as they are typed. The
// schema comes from `policyJsonSchema()`; a unit test (test/unit/policy/policy-schema.test.ts)
// compares it with the committed file, so the two cannot drift.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const { policyJsonSchema } = await import('../dist/shared/policy.js');
const schema = policyJsonSchema();
const target = fileURLToPath(new URL('../sandbox-policies/policy.schema.json', import.meta.url));
await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${target}`);
