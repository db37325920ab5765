import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * `isolation: "worktree"` through the real CLI, real executors under bubblewrap, and the fake
 * Messages API: each writing child works in its own copy, its changes come back as a diff, and
 * `apply_agent_diff` brings them in through the parent's executor, conflicts reported.
 */
const tools = (...calls: [string, string, Record<string, unknown>][]): FakeReply => ({
  type: 'message',
  blocks: calls.map(([id, name, input]) => ({ type: 'tool_use', id, name, input })),
  stopReason: 'tool_use',
});
const done = (summary: string): [string, string, Record<string, unknown>] => [
  'c',
  'complete_task',
  { status: 'completed', summary },
];

// biome-ignore lint/suspicious/noExplicitAny: stream-json lines, checked field by field below
function resultOf(stdout: string, id: string): any {
  for (const line of stdout.trim().split('\n')) {
    const event = JSON.parse(line);
    if (event.type === 'tool_call_result' && event.id === id) return event;
  }
  return undefined;
}

/** The JSON at the end of a failed tool's output (after its first line). */
function trailingJson(output: string): Record<string, unknown> {
  return JSON.parse(output.slice(output.indexOf('\n') + 1));
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });
}

const NOTES = 'line1\nline2\nline3\n';

describe('worktree sub-agents', () => {
  it('two children edit the same file at once: both diffs come back, the first applies, the second reports the conflict', async () => {
    await using ws = await hostDir('wt-two-');
    await using home = await hostDir('wt-home-');
    await writeFile(path.join(ws.path, 'notes.txt'), NOTES);
    git(ws.path, 'init', '-q');
    git(ws.path, 'add', '.');
    git(ws.path, 'commit', '-q', '-m', 'start');
    await using api = await fakeMessagesApi([
      tools(
        ['s1', 'spawn_agent', { task: 'change line 2 of notes.txt', isolation: 'worktree' }],
        ['s2', 'spawn_agent', { task: 'change line 2 of notes.txt too', isolation: 'worktree' }],
      ),
      // Each child takes one of these (in whatever order they ask): a write and its result at once.
      tools(['w', 'write_file', { path: 'notes.txt', content: 'line1\nline2 from X\nline3\n' }], done('X')),
      tools(['w', 'write_file', { path: 'notes.txt', content: 'line1\nline2 from Y\nline3\n' }], done('Y')),
      tools(['a1', 'apply_agent_diff', { agent_id: 'agent-1' }]),
      tools(['a2', 'apply_agent_diff', { agent_id: 'agent-2' }]),
      text('done'),
    ]);
    const run = await runCli(['-p', 'edit notes', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    const diffs = ['s1', 's2'].map((id) => JSON.parse(resultOf(run.stdout, id).output).worktree);
    expect(diffs.map((d) => d.diff_id)).toEqual(['agent-1', 'agent-2']);
    for (const d of diffs) {
      expect(d.files).toEqual([{ path: 'notes.txt', status: 'modified' }]);
      expect(d.diff).toMatch(/^-line2$/m);
    }
    const first = /^\+(line2 from [XY])$/m.exec(diffs[0].diff)?.[1];
    const second = /^\+(line2 from [XY])$/m.exec(diffs[1].diff)?.[1];
    expect(new Set([first, second])).toEqual(new Set(['line2 from X', 'line2 from Y']));

    const applied = resultOf(run.stdout, 'a1');
    expect(applied.isError, applied.output).toBe(false);
    expect(JSON.parse(applied.output)).toEqual({ agent_id: 'agent-1', applied: ['notes.txt'] });
    const conflicted = resultOf(run.stdout, 'a2');
    expect(conflicted.isError).toBe(true);
    expect(conflicted.code).toBe('conflict');
    expect(conflicted.output).toContain('notes.txt conflicts');
    const report = trailingJson(conflicted.output) as {
      applied: string[];
      conflicts: { file: string; hunks: { line: number; workspace: string; agent: string }[] }[];
    };
    expect(report.applied).toEqual([]);
    expect(report.conflicts).toEqual([
      {
        file: 'notes.txt',
        why: '1 hunk changed on both sides',
        hunks: [{ line: 2, workspace: first, agent: second }],
      },
    ]);
    // The workspace has the first child's change, and no conflict marker was written.
    const notes = await readFile(path.join(ws.path, 'notes.txt'), 'utf8');
    expect(notes).toBe(`line1\n${first}\nline3\n`);
    expect(notes).not.toContain('<<<<<<<');
    // Siblings share their dispatch prefix (worktrees and policy names are below it), cached on its own.
    const spawned = ['s1', 's2'].map(
      (id) => JSON.parse(resultOf(run.stdout, id).output).dispatch.prefix_sha256,
    );
    expect(spawned[0]).toBe(spawned[1]);
    const children = api.requests.filter((r) =>
      JSON.stringify(r.body?.system).includes('# You are a sub-agent'),
    );
    const systems = children.map((r) => r.body?.system as { text: string; cache_control?: unknown }[]);
    expect(systems.map((s) => s.length)).toEqual([2, 2]);
    expect(systems[0]?.[0]?.text).toBe(systems[1]?.[0]?.text);
    expect(systems[0]?.[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(systems[0]?.[1]?.text).not.toBe(systems[1]?.[1]?.text);
    // Nothing of the worktrees is left.
    expect(await readdir(path.join(home.path, '.cache', 'skate', 'worktrees')).catch(() => [])).toEqual([]);
  });

  it('a child sees the parent’s uncommitted work, and its diff merges with the parent’s edits since', async () => {
    await using ws = await hostDir('wt-merge-');
    await using home = await hostDir('wt-home-');
    await writeFile(path.join(ws.path, 'notes.txt'), NOTES);
    git(ws.path, 'init', '-q');
    git(ws.path, 'add', '.');
    git(ws.path, 'commit', '-q', '-m', 'start');
    // Uncommitted: a changed tracked file and an untracked one.
    await writeFile(path.join(ws.path, 'notes.txt'), `${NOTES}line4 uncommitted\n`);
    await writeFile(path.join(ws.path, 'draft.txt'), 'a draft nobody committed\n');
    await using api = await fakeMessagesApi([
      tools(['s1', 'spawn_agent', { task: 'copy the draft, add a last line', isolation: 'worktree' }]),
      tools(
        ['sh', 'shell', { command: 'cp draft.txt seen.txt && echo "line5 by the agent" >> notes.txt' }],
        done('copied'),
      ),
      // Meanwhile the parent edits the first line itself.
      tools(['w', 'write_file', { path: 'notes.txt', content: `LINE1\nline2\nline3\nline4 uncommitted\n` }]),
      tools(['a1', 'apply_agent_diff', { agent_id: 'agent-1' }]),
      text('done'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    const worktree = JSON.parse(resultOf(run.stdout, 's1').output).worktree;
    expect(worktree.files).toEqual([
      { path: 'notes.txt', status: 'modified' },
      { path: 'seen.txt', status: 'added' },
    ]);
    const applied = resultOf(run.stdout, 'a1');
    expect(applied.isError, applied.output).toBe(false);
    expect(await readFile(path.join(ws.path, 'seen.txt'), 'utf8')).toBe('a draft nobody committed\n');
    expect(await readFile(path.join(ws.path, 'notes.txt'), 'utf8')).toBe(
      'LINE1\nline2\nline3\nline4 uncommitted\nline5 by the agent\n',
    );
  });

  it('an agent file asks for a worktree: the call cannot turn it off, and the child writes only its copy', async () => {
    await using ws = await hostDir('wt-def-');
    await using home = await hostDir('wt-home-');
    await writeFile(path.join(ws.path, 'notes.txt'), NOTES);
    await mkdir(path.join(home.path, '.skate', 'agents'), { recursive: true });
    await writeFile(
      path.join(home.path, '.skate', 'agents', 'writer.md'),
      '---\nname: writer\ndescription: Writes in its own worktree.\nisolation: worktree\n---\nYou write.\n',
    );
    await using api = await fakeMessagesApi([
      tools(['s1', 'spawn_agent', { agent: 'writer', task: 'rewrite notes', isolation: 'none' }]),
      tools(['w', 'write_file', { path: 'notes.txt', content: 'rewritten\n' }], done('rewritten')),
      text('not applied'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(resultOf(run.stdout, 's1').output);
    expect(report.agent).toBe('writer');
    expect(report.worktree).toMatchObject({
      diff_id: 'agent-1',
      files: [{ path: 'notes.txt', status: 'modified' }],
    });
    // Not applied, so the workspace is as it was.
    expect(await readFile(path.join(ws.path, 'notes.txt'), 'utf8')).toBe(NOTES);
  });
});
