import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolMemory } from '../../../harness/executor-client/tool-memory.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { testPolicy } from '../../support/policies.js';
import { tempDir } from '../../support/temp-dir.js';

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Reads a file.', effect: 'read', inputSchema: { type: 'object' } },
  { name: 'shell', description: 'Runs a command.', effect: 'execute', streamsOutput: true, inputSchema: {} },
];

describe('toolMemory', () => {
  it('recalls what was remembered under the same policy and flags, in any workspace', async () => {
    await using dir = await tempDir();
    const inputs = { policy: testPolicy('/work/a'), diagnosticTools: false };
    expect(await toolMemory(inputs, dir.path).recall()).toBeUndefined();
    await toolMemory(inputs, dir.path).remember(tools);
    expect(await toolMemory(inputs, dir.path).recall()).toEqual(tools);
    // The same policy resolved for another workspace lists the same tools.
    expect(await toolMemory({ ...inputs, policy: testPolicy('/work/b') }, dir.path).recall()).toEqual(tools);
  });

  it('recalls nothing for another policy or diagnostics flag', async () => {
    await using dir = await tempDir();
    const policy = testPolicy('/work/a');
    await toolMemory({ policy, diagnosticTools: false }, dir.path).remember(tools);
    const networkOn = { ...policy, network: { mode: 'on' as const } };
    expect(
      await toolMemory({ policy: networkOn, diagnosticTools: false }, dir.path).recall(),
    ).toBeUndefined();
    expect(await toolMemory({ policy, diagnosticTools: true }, dir.path).recall()).toBeUndefined();
    const readOnly = { ...policy, write: { allow: [] } };
    expect(await toolMemory({ policy: readOnly, diagnosticTools: false }, dir.path).recall()).toBeUndefined();
  });

  it('ignores a damaged or foreign file, and replaces it with the next list', async () => {
    await using dir = await tempDir();
    const inputs = { policy: testPolicy('/work/a'), diagnosticTools: false };
    await toolMemory(inputs, dir.path).remember(tools);
    const [name] = await readdir(dir.path);
    const file = path.join(dir.path, name!);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { key: string };
    for (const content of [
      '{"key":',
      JSON.stringify({ key: 'another key', tools }),
      JSON.stringify({ key: saved.key, tools: [{ name: 'x y', description: 1 }] }),
    ]) {
      await writeFile(file, content);
      expect(await toolMemory(inputs, dir.path).recall(), content).toBeUndefined();
    }
    await toolMemory(inputs, dir.path).remember(tools);
    expect(await toolMemory(inputs, dir.path).recall()).toEqual(tools);
  });

  it('rewrites only a list that changed, and keeps the 32 newest lists', async () => {
    await using dir = await tempDir();
    const memory = toolMemory({ policy: testPolicy('/work/a'), diagnosticTools: false }, dir.path);
    await memory.remember(tools);
    const [name] = await readdir(dir.path);
    const file = path.join(dir.path, name!);
    await utimes(file, new Date(1_000), new Date(1_000));
    expect(await memory.recall()).toEqual(tools);
    await memory.remember(tools); // the same list: not written again
    expect((await stat(file)).mtimeMs).toBe(1_000);
    await memory.remember(tools.slice(0, 1)); // changed: written
    expect(
      await toolMemory({ policy: testPolicy('/work/a'), diagnosticTools: false }, dir.path).recall(),
    ).toEqual(tools.slice(0, 1));
    for (let i = 0; i < 40; i++) {
      const policy = testPolicy('/work/a', { name: `p${i}` });
      await toolMemory({ policy, diagnosticTools: false }, dir.path).remember(tools);
    }
    expect((await readdir(dir.path)).filter((entry) => entry.endsWith('.json'))).toHaveLength(32);
  });
});
