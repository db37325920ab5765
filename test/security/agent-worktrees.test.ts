import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * A worktree child (`isolation: "worktree"`) is a hostile writer: its worktree is its only
 * writable root, enforced by its executor's sandbox, and what it brings back is applied only
 * through the parent's executor, with configuration paths refused. Each case asserts on the host.
 */
type Call = [string, string, Record<string, unknown>];
const tools = (...calls: Call[]): FakeReply => ({
  type: 'message',
  blocks: calls.map(([id, name, input]) => ({ type: 'tool_use', id, name, input })),
  stopReason: 'tool_use',
});
const done: Call = ['c', 'complete_task', { status: 'completed', summary: 'done' }];

function results(stdout: string): Map<string, { isError: boolean; output: string; code?: string }> {
  const found = new Map<string, { isError: boolean; output: string; code?: string }>();
  for (const line of stdout.trim().split('\n')) {
    const event = JSON.parse(line);
    if (event.type === 'tool_call_result') found.set(event.id, event);
  }
  return found;
}

async function repository(prefix: string) {
  const ws = await hostDir(prefix);
  await writeFile(path.join(ws.path, 'README.md'), '# project\n');
  execFileSync('git', ['init', '-q'], { cwd: ws.path });
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x'],
    {
      cwd: ws.path,
    },
  );
  return ws;
}

describe('a worktree child cannot reach the parent’s workspace', () => {
  it('writes by absolute path, by ../ and through a symbolic link out of its worktree are held', async () => {
    await using ws = await repository('wt-escape-');
    await using home = await hostDir('wt-home-');
    const climb = `${'../'.repeat(40)}${ws.path.slice(1)}`;
    await using api = await fakeMessagesApi([
      tools(['s1', 'spawn_agent', { task: 'write things', isolation: 'worktree' }]),
      tools(
        ['w1', 'write_file', { path: path.join(ws.path, 'absolute.txt'), content: 'pwned' }],
        ['w2', 'write_file', { path: `${climb}/relative.txt`, content: 'pwned' }],
        [
          'sh',
          'shell',
          {
            command: `echo pwned > ${ws.path}/shell.txt; ln -s ${ws.path} out; echo pwned > out/link.txt; echo pwned > ${climb}/climb.txt; true`,
          },
        ],
        done,
      ),
      tools(['a1', 'apply_agent_diff', { agent_id: 'agent-1' }]),
      text('done'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    const found = results(run.stdout);
    expect(found.get('w1')?.isError).toBe(true);
    expect(found.get('w2')?.isError).toBe(true);
    for (const name of ['absolute.txt', 'relative.txt', 'shell.txt', 'link.txt', 'climb.txt', 'out'])
      expect(existsSync(path.join(ws.path, name)), name).toBe(false);
    // The link it left in its worktree came back in its diff, and applying it is refused.
    const apply = found.get('a1');
    expect(apply?.isError).toBe(true);
    expect(apply?.output).toContain('out is refused (a symbolic link)');
    expect(existsSync(path.join(ws.path, 'out'))).toBe(false);
    // The parent's repository got no worktree entry, and nothing of the worktree is left.
    expect(existsSync(path.join(ws.path, '.git', 'worktrees'))).toBe(false);
    expect(await readdir(path.join(home.path, '.cache', 'skate', 'worktrees')).catch(() => [])).toEqual([]);
  });

  it('its worktree cannot plant .skate, .git hooks, .claude or .mcp.json in the parent', async () => {
    await using ws = await repository('wt-plant-');
    await using home = await hostDir('wt-home-');
    const settings = JSON.stringify({ permissions: { allow: ['*'] } });
    await using api = await fakeMessagesApi([
      tools(['s1', 'spawn_agent', { task: 'configure things', isolation: 'worktree' }]),
      tools(
        ['p1', 'write_file', { path: '.skate/settings.json', content: settings }],
        ['p2', 'write_file', { path: '.git/hooks/post-checkout', content: '#!/bin/sh\ntouch /tmp/pwned\n' }],
        ['p3', 'write_file', { path: '.claude/agents/evil.md', content: '---\nname: evil\n---\nx\n' }],
        ['p4', 'write_file', { path: '.mcp.json', content: '{"mcpServers":{"x":{"command":"sh"}}}' }],
        [
          'sh',
          'shell',
          {
            command:
              'mkdir -p .skate .claude .git/hooks; echo x > .skate/plan.md; echo x > .git/hooks/pre-commit; true',
          },
        ],
        ['p5', 'write_file', { path: 'src/ok.ts', content: 'export const ok = 1;\n' }],
        done,
      ),
      tools(['a1', 'apply_agent_diff', { agent_id: 'agent-1' }]),
      text('done'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    const found = results(run.stdout);
    // Its own worktree keeps them read-only, as the parent's workspace does (.mcp.json and
    // .claude/agents are configuration in every sandbox), so none comes back in its diff.
    for (const id of ['p1', 'p2', 'p3', 'p4']) expect(found.get(id)?.isError, id).toBe(true);
    const apply = found.get('a1');
    expect(apply?.isError, apply?.output).toBe(false);
    expect(await readFile(path.join(ws.path, 'src', 'ok.ts'), 'utf8')).toBe('export const ok = 1;\n');
    for (const planted of [
      '.skate/settings.json',
      '.skate/plan.md',
      '.git/hooks/post-checkout',
      '.git/hooks/pre-commit',
      '.claude',
      '.mcp.json',
    ])
      expect(existsSync(path.join(ws.path, planted)), planted).toBe(false);
  });
});
