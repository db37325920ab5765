import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const SECRETS = ['.env', '.env.local', '.env.production', 'app/.env.development.local', '.env.example.local'];
const TEMPLATES = ['.env.example', '.env.sample', '.env.template', 'app/.env.example'];

describe.skipIf(noSandbox)('.env files under the built-in policies', () => {
  it.each(['execute', 'execute-git', 'readonly', 'plan'])(
    '%s: secrets stay hidden from the shell and the tools, committed templates are readable',
    async (name) => {
      await using root = await hostDir();
      const ws = path.join(root.path, 'ws');
      await mkdir(path.join(ws, 'app'), { recursive: true });
      for (const file of [...SECRETS, ...TEMPLATES]) await writeFile(path.join(ws, file), `KEY=${file}\n`);
      const loaded = await loadPolicy(name, { workspace: ws });
      if (!loaded.ok) throw new Error(loaded.problem.message);
      await using executor = await sandboxedExecutor(loaded.policy);
      for (const file of TEMPLATES) {
        expect(await executor.sh(`cat ${file}`), file).toMatchObject({
          output: `KEY=${file}\n`,
          exitCode: 0,
        });
        const read = await executor.tool('read_file', { path: file });
        expect(read.isError, file).toBeFalsy();
        expect(read.output, file).toContain(`KEY=${file}`);
      }
      for (const file of SECRETS) {
        const shell = await executor.sh(`cat ${file}`);
        expect(shell.output, file).not.toContain('KEY=');
        expect(await executor.tool('read_file', { path: file }), file).toMatchObject({ code: 'denied' });
      }
      const grep = await executor.sh('grep -r KEY= . 2>/dev/null | sort');
      expect(
        grep.output
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(':')[0]),
      ).toEqual(TEMPLATES.map((file) => `./${file}`).sort());
    },
  );
});
