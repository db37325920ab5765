import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRipgrep } from '../../executor/fs/ripgrep.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import type { TempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const skip = !support.available
  ? `no kernel sandbox here: ${support.problem}`
  : findRipgrep() === undefined
    ? 'rg is not installed (npm run setup installs it)'
    : undefined;

/** grep and glob through ripgrep inside a real sandboxed executor: what the host's denied files show. */
describe.skipIf(skip)('grep and glob with ripgrep in the kernel sandbox', () => {
  let root: TempDir;
  let ws: string;
  let executor: SandboxedExecutor;

  beforeAll(async () => {
    root = await hostDir();
    ws = path.join(root.path, 'ws');
    for (const [name, text] of Object.entries({
      '.env': 'TOKEN=needle\n',
      'app/.env': 'TOKEN=needle\n',
      'app/main.ts': 'const needle = 1;\n',
      'secrets/key.ts': 'needle\n',
    })) {
      await mkdir(path.dirname(path.join(ws, name)), { recursive: true });
      await writeFile(path.join(ws, name), text);
    }
    executor = await sandboxedExecutor(
      testPolicy(ws, { read: { allow: ['/'], deny: ['**/.env', path.join(ws, 'secrets')] } }),
    );
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await root?.[Symbol.asyncDispose]();
  });

  it('says it searches with ripgrep', async () => {
    expect((await executor.client.health()).search).toBe('ripgrep');
  });

  it('never shows denied files, including one created after the sandbox was built', async () => {
    // Deny globs are expanded into masks when the sandbox is built; a later file is not masked,
    // so only the executor's own check keeps it out.
    await mkdir(path.join(ws, 'late'));
    await writeFile(path.join(ws, 'late', '.env'), 'TOKEN=needle\n');
    for (const output_mode of ['files_with_matches', 'content', 'count']) {
      const result = await executor.tool('grep', { pattern: 'needle', output_mode });
      expect(result.isError).toBe(false);
      expect(result.output).toMatch(/^app\/main\.ts/);
      expect(result.output).not.toMatch(/\.env|secrets|TOKEN/);
    }
    const listed = await executor.tool('glob', { pattern: '**/*' });
    expect(listed.output.split('\n').sort()).toEqual(['app/main.ts']);
  });

  it('stops at the cap', async () => {
    await mkdir(path.join(ws, 'many'));
    for (let i = 0; i < 300; i++) await writeFile(path.join(ws, 'many', `f${i}.txt`), 'hit\n'.repeat(50));
    const result = await executor.tool('grep', {
      pattern: 'hit',
      path: 'many',
      output_mode: 'content',
      max_results: 7,
    });
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(8);
    expect(lines.at(-1)).toMatch(/^\[stopped at 7 matching lines/);
  });
});
