import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * `--allowedTools` / `--disallowedTools` against a model that tries to get round them: chained,
 * substituted and redirected shell commands, and a sub-agent doing what its parent may not. Each
 * case asserts on the host: did the file appear, is the file still there.
 */
const env = (url: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ANTHROPIC_API_KEY: 'sk-ant-test-key',
  ANTHROPIC_BASE_URL: url,
});
const calls = (...blocks: { id: string; name: string; input: Record<string, unknown> }[]): FakeReply => ({
  type: 'message',
  blocks: blocks.map((block) => ({ type: 'tool_use', ...block })),
  stopReason: 'tool_use',
});
const done: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'done' }] };

function results(stdout: string): Map<string, { isError: boolean; output: string }> {
  const found = new Map<string, { isError: boolean; output: string }>();
  for (const line of stdout.trim().split('\n')) {
    const event = JSON.parse(line);
    if (event.type === 'tool_call_result') found.set(event.id, event);
  }
  return found;
}

describe('tool rules hold against a model working round them', () => {
  it("--allowedTools 'shell(git *)': git runs; chaining, substitution, redirection and other tools do not", async () => {
    await using ws = await hostDir('rules-allow-');
    await using api = await fakeMessagesApi([
      calls(
        { id: 'git', name: 'shell', input: { command: 'git --version' } },
        { id: 'chain', name: 'shell', input: { command: 'git --version; touch chained.txt' } },
        { id: 'and', name: 'shell', input: { command: 'git --version && touch anded.txt' } },
        { id: 'subst', name: 'shell', input: { command: 'git $(touch substituted.txt)' } },
        { id: 'nl', name: 'shell', input: { command: 'git --version\ntouch newline.txt' } },
        { id: 'plain', name: 'shell', input: { command: 'touch plain.txt' } },
        { id: 'write', name: 'write_file', input: { path: 'written.txt', content: 'x' } },
      ),
      done,
    ]);
    const run = await runCli(
      [
        '-p',
        'try',
        '--allowedTools',
        'shell(git *)',
        '--output-format',
        'stream-json',
        '--workspace',
        ws.path,
      ],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    const got = results(run.stdout);
    expect(got.get('git')).toMatchObject({ isError: false });
    expect(got.get('git')?.output).toContain('git version');
    for (const id of ['chain', 'and', 'subst', 'nl', 'plain', 'write']) {
      expect(got.get(id), id).toMatchObject({ isError: true });
      expect(got.get(id)?.output).toContain('--allowedTools allows only shell(git *)');
    }
    for (const file of [
      'chained.txt',
      'anded.txt',
      'substituted.txt',
      'newline.txt',
      'plain.txt',
      'written.txt',
    ]) {
      expect(existsSync(path.join(ws.path, file)), file).toBe(false);
    }
  });

  it("--disallowedTools 'shell(rm *)': an rm hidden in a chain or a substitution is refused; the file stays", async () => {
    await using ws = await hostDir('rules-deny-');
    await writeFile(path.join(ws.path, 'keep.txt'), 'keep\n');
    await using api = await fakeMessagesApi([
      calls(
        { id: 'direct', name: 'shell', input: { command: 'rm keep.txt' } },
        { id: 'chain', name: 'shell', input: { command: 'cd . && rm -f keep.txt' } },
        { id: 'subst', name: 'shell', input: { command: 'echo $(rm -f keep.txt)' } },
        { id: 'ok', name: 'shell', input: { command: 'cat keep.txt' } },
      ),
      done,
    ]);
    const run = await runCli(
      [
        '-p',
        'try',
        '--disallowedTools',
        'shell(rm *)',
        '--output-format',
        'stream-json',
        '--workspace',
        ws.path,
      ],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    const got = results(run.stdout);
    for (const id of ['direct', 'chain', 'subst']) expect(got.get(id), id).toMatchObject({ isError: true });
    expect(got.get('ok')).toMatchObject({ isError: false });
    expect(existsSync(path.join(ws.path, 'keep.txt'))).toBe(true);
  });

  it("a sub-agent is held to its parent's --disallowedTools: its write never lands", async () => {
    await using ws = await hostDir('rules-child-');
    await using api = await fakeMessagesApi([
      calls({ id: 'spawn', name: 'spawn_agent', input: { task: 'write sub/x.txt', write_paths: ['sub'] } }),
      calls({ id: 'child_write', name: 'write_file', input: { path: 'sub/x.txt', content: 'x' } }),
      calls({
        id: 'child_done',
        name: 'complete_task',
        input: {
          status: 'failed',
          summary: 'write refused',
          files_changed: [],
          tests_run: [],
          follow_ups: [],
        },
      }),
      done,
    ]);
    const run = await runCli(
      [
        '-p',
        'delegate',
        '--disallowedTools',
        'write_file',
        '--output-format',
        'stream-json',
        '--workspace',
        ws.path,
      ],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(results(run.stdout).get('child_write')).toMatchObject({ isError: true });
    expect(existsSync(path.join(ws.path, 'sub', 'x.txt'))).toBe(false);
  });

  it("a rule naming no tool is a usage error before any request (Claude Code's names get a hint)", async () => {
    await using ws = await hostDir('rules-typo-');
    await using api = await fakeMessagesApi([done]);
    const run = await runCli(['-p', 'x', '--disallowedTools', 'Bash(rm *)', '--workspace', ws.path], {
      env: env(api.url),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Bash is Claude Code's name; Skate's is shell");
    expect(api.requests).toHaveLength(0);
  });
});
