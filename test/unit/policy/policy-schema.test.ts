import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyJsonSchema } from '../../../shared/policy.js';
import { checkPolicy } from '../../../shared/validate-policy.js';

const POLICY_DIR = path.join(import.meta.dirname, '../../../sandbox-policies');
const SCHEMA_FILE = path.join(POLICY_DIR, 'policy.schema.json');

/** What scripts/write-policy-schema.mjs writes. */
function generatedSchema(): string {
  return `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;
}

async function shippedPolicies(): Promise<string[]> {
  return (await readdir(POLICY_DIR)).filter(
    (name) => name.endsWith('.json') && !name.endsWith('.schema.json'),
  );
}

describe('sandbox-policies/policy.schema.json', () => {
  it('is what the PolicyFile schema generates (run `npm run build && node scripts/write-policy-schema.mjs`)', async () => {
    expect(await readFile(SCHEMA_FILE, 'utf8')).toBe(generatedSchema());
  });

  it('is referenced by every shipped policy, and every shipped policy validates', async () => {
    const names = await shippedPolicies();
    expect(names).toEqual(
      expect.arrayContaining(['execute.json', 'full.json', 'plan.json', 'readonly.json']),
    );
    for (const name of names) {
      const raw = JSON.parse(await readFile(path.join(POLICY_DIR, name), 'utf8')) as { $schema?: string };
      expect(raw.$schema, name).toBe('./policy.schema.json');
      const check = checkPolicy(raw, name, { workspace: '/ws', home: '/home/u' });
      expect(check.ok ? 'valid' : check.problem, name).toBe('valid');
    }
  });

  it('hides root-readable secrets and shell histories in every restricted shipped policy', async () => {
    const required = [
      '/etc/shadow',
      '/etc/gshadow',
      '/etc/sudoers',
      '/etc/sudoers.d',
      '/etc/ssh/ssh_host_*_key',
      '/home/u/.bash_history',
      '/home/u/.zsh_history',
      '/home/u/.python_history',
      '/home/u/.node_repl_history',
      '/home/u/.psql_history',
      '/home/u/.mysql_history',
      '/home/u/.ssh',
    ];
    for (const name of ['execute.json', 'readonly.json', 'plan.json']) {
      const raw: unknown = JSON.parse(await readFile(path.join(POLICY_DIR, name), 'utf8'));
      const check = checkPolicy(raw, name, { workspace: '/ws', home: '/home/u' });
      if (!check.ok) throw new Error(check.problem.message);
      expect(check.policy.read.deny, name).toEqual(expect.arrayContaining(required));
    }
  });
  it('names network.mode and the three modes when a policy gives a mode that is none of them', async () => {
    const raw = JSON.parse(await readFile(path.join(POLICY_DIR, 'execute.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const check = checkPolicy({ ...raw, network: { mode: 'some' } }, 'bad.json', {
      workspace: '/ws',
      home: '/home/u',
    });
    if (check.ok) throw new Error('a network mode of "some" was accepted');
    expect(check.problem.field).toBe('network.mode');
    expect(check.problem.suggestion).toBe('use one of: "off", "on", "allowlist"');
  });
});
