import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { RunResult } from '../../shared/run-result.js';
import { cliWorld } from '../support/cli-world.js';
import { eventually } from '../support/processes.js';

const KEY = 'sk-ant-test-sessions';

async function sessionFiles(workspace: string): Promise<string[]> {
  const dir = path.join(workspace, '.skate', 'sessions');
  return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).map((name) => path.join(dir, name));
}

describe('sessions through the CLI', () => {
  it('records a run, continues it with the same conversation, lists and shows it', async () => {
    await using world = await cliWorld({
      key: KEY,
      replies: [
        {
          type: 'message',
          blocks: [{ type: 'tool_use', id: 'tu_1', name: 'list_dir', input: { path: '.' } }],
          stopReason: 'tool_use',
          usage: { input_tokens: 100, output_tokens: 20 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'First answer.' }],
          usage: { input_tokens: 150, output_tokens: 5 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Second answer.' }],
          usage: { input_tokens: 200, output_tokens: 5 },
        },
      ],
    });
    const { api } = world;
    const dir = { path: world.ws };
    const first = await world.skate(['-p', 'first task', '--output-format', 'json', '--workspace', dir.path]);
    expect(first.code, first.stderr).toBe(0);
    const { sessionId } = RunResult.parse(JSON.parse(first.stdout));
    expect(sessionId).toBeDefined();
    expect(await sessionFiles(dir.path)).toEqual([
      path.join(dir.path, '.skate', 'sessions', `${sessionId}.jsonl`),
    ]);

    const second = await world.skate([
      '--continue',
      '-p',
      'second task',
      '--output-format',
      'json',
      '--workspace',
      dir.path,
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect(RunResult.parse(JSON.parse(second.stdout)).sessionId).toBe(sessionId);
    // The model received the whole first conversation, then the new prompt.
    const sent = JSON.stringify(api.requests[2]!.body!.messages);
    for (const part of ['first task', 'tu_1', 'First answer.', 'second task']) expect(sent).toContain(part);
    expect(await sessionFiles(dir.path)).toHaveLength(1);

    const list = await world.skate(['sessions', 'list', '--json', '--workspace', dir.path]);
    expect(list.code).toBe(0);
    const [listed] = JSON.parse(list.stdout) as { id: string; turns: number; firstPrompt: string }[];
    expect(listed).toMatchObject({ id: sessionId, firstPrompt: 'first task' });
    expect(listed!.turns).toBe(3);

    const show = await world.skate(['sessions', 'show', sessionId!.slice(0, 8), '--workspace', dir.path]);
    expect(show.code, show.stderr).toBe(0);
    for (const part of ['first task', 'list_dir', 'First answer.', 'second task', 'Second answer.']) {
      expect(show.stdout).toContain(part);
    }
  });

  it('forks at an earlier event into a new session that links to the original', async () => {
    await using world = await cliWorld({
      key: KEY,
      replies: [
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'One.' }],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Two.' }],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Forked.' }],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      ],
    });
    const { api } = world;
    const dir = { path: world.ws };
    await world.skate(['-p', 'step one', '--workspace', dir.path]);
    await world.skate(['--continue', '-p', 'step two', '--workspace', dir.path]);
    const [file] = await sessionFiles(dir.path);
    const events = (await readFile(file!, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    const firstReply = events.find((event) => event.payload.type === 'assistant_message')!;
    const sessionId = path.basename(file!, '.jsonl');
    const fork = await world.skate([
      '--resume',
      sessionId,
      '--fork-at',
      firstReply.id,
      '-p',
      'another way',
      '--output-format',
      'json',
      '--workspace',
      dir.path,
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    const forkId = RunResult.parse(JSON.parse(fork.stdout)).sessionId!;
    expect(forkId).not.toBe(sessionId);
    const sent = JSON.stringify(api.requests[2]!.body!.messages);
    expect(sent).toContain('step one');
    expect(sent).toContain('One.');
    expect(sent).not.toContain('step two');
    const header = JSON.parse(
      (await readFile(path.join(path.dirname(file!), `${forkId}.jsonl`), 'utf8')).split('\n')[0]!,
    );
    expect(header.forkedFrom).toEqual({ sessionId, eventId: firstReply.id });
    expect(await readFile(file!, 'utf8')).not.toContain('another way');
  });

  it('survives a SIGKILL of the harness mid-run: the log loads and the session continues', async () => {
    await using world = await cliWorld({
      key: KEY,
      replies: [
        {
          type: 'message',
          blocks: [
            { type: 'tool_use', id: 'tu_1', name: 'shell', input: { command: 'echo started; sleep 30' } },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 10, output_tokens: 5 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Resumed fine.' }],
          usage: { input_tokens: 20, output_tokens: 3 },
        },
      ],
    });
    const { api } = world;
    const dir = { path: world.ws };
    const harness = spawn(
      process.execPath,
      [distPath('cli', 'skate.js'), '-p', 'long task', '--workspace', dir.path],
      {
        env: world.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    harness.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    expect(await eventually(() => output.includes('▸ shell'), 15_000)).toBe(true);
    // Kill it mid-tool, once the call is on disk (the log is written in batches, a moment behind):
    // the reply that makes it is logged whole, tool_use block included.
    const logged = async () => {
      const files = await sessionFiles(dir.path).catch(() => []);
      return files.length === 1 && (await readFile(files[0]!, 'utf8')).includes('"tool_use"');
    };
    expect(await eventually(logged, 15_000)).toBe(true);
    harness.kill('SIGKILL');
    await new Promise((resolve) => harness.once('close', resolve));

    const resumed = await world.skate([
      '--continue',
      '-p',
      'go on',
      '--output-format',
      'json',
      '--workspace',
      dir.path,
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(RunResult.parse(JSON.parse(resumed.stdout)).finalMessage).toBe('Resumed fine.');
    // The interrupted call was closed with an error result so the conversation stays valid for the API.
    const sent = JSON.stringify(api.requests[1]!.body!.messages);
    expect(sent).toContain('tu_1');
    expect(sent).toContain('go on');
  });
});
