import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAskUserTool } from '../../harness/agents/ask-user-tool.js';
import { childPolicyFor } from '../../harness/agents/child-policy.js';
import { createCollectingEmitter } from '../../harness/emitters/collecting-emitter.js';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import type { MetaToolCall } from '../../harness/engine/engine-types.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { ensurePlanFile } from '../../harness/planning/plan-file.js';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { launcherFor } from '../../harness/sandbox/choose-launcher.js';
import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import { delayTurns } from '../support/delayed-provider.js';
import { forceGc } from '../support/force-gc.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { processDescendants } from '../support/process-descendants.js';
import { isAlive } from '../support/processes.js';
import {
  completeTurn,
  runWithSubagents,
  type SpawnRun,
  shellTurn,
  spawnCall,
} from '../support/spawn-harness.js';

/** The parent-level tool_call_result of a call. */
function parentResult(run: SpawnRun, id: string) {
  const result = run.events.ofType('tool_call_result').find((e) => e.id === id && e.agent.length === 0);
  if (!result) throw new Error(`no result for ${id}`);
  return result;
}

/** A child's tool_call_result by its call id. */
function childResult(run: SpawnRun, agentId: string, id: string) {
  const result = run.events
    .ofType('tool_call_result')
    .find((e) => e.id === id && e.agent[e.agent.length - 1] === agentId);
  if (!result) throw new Error(`no result for ${agentId}/${id}`);
  return result;
}

const done = { steps: [{ type: 'text' as const, text: 'All delegated.' }] };

describe('spawn_agent: sub-agents on their own narrowed executors', () => {
  it('denies a write outside the narrowed write paths in the kernel, and lets one inside land', async () => {
    await using ws = await hostDir('subagent-');
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('spawn-1', { task: 'write', write_paths: ['sub'] })] }, done],
      children: {
        write: [
          {
            steps: [
              { type: 'tool_call', id: 'in', name: 'shell', input: { command: 'echo in > sub/inside.txt' } },
              {
                type: 'tool_call',
                id: 'out',
                name: 'shell',
                input: { command: `echo x > ${ws.path}/outside.txt` },
              },
            ],
            usage: { inputTokens: 100, outputTokens: 10 },
          },
          {
            ...completeTurn('wrote sub/inside.txt', { files_changed: ['sub/inside.txt'] }),
            usage: { inputTokens: 50 },
          },
        ],
      },
    });
    expect(run.outcome.status).toBe('complete');
    // On the host: the write inside landed (and `sub` was created for it), the one outside did not.
    expect(await readFile(path.join(ws.path, 'sub', 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(path.join(ws.path, 'outside.txt'))).toBe(false);
    expect(childResult(run, 'agent-1', 'out').output).toMatch(/Read-only file system/);

    const [child] = run.spawned;
    expect(child?.policy.write.allow).toEqual([path.join(ws.path, 'sub')]);
    expect(isNarrowerOrEqual(child!.policy, testPolicy(ws.path))).toBe(true);

    const result = parentResult(run, 'spawn-1');
    expect(result.isError).toBe(false);
    const report = JSON.parse(result.output);
    expect(report).toMatchObject({
      agent_id: 'agent-1',
      result: { status: 'completed', summary: 'wrote sub/inside.txt', files_changed: ['sub/inside.txt'] },
      usage: { turns: 2, input_tokens: 150, output_tokens: 10 },
    });
    // The child's usage is in the parent's totals.
    expect(run.outcome.usage.inputTokens).toBe(150);
    // Its events reach the parent tagged with its path, its tool calls with the spawning call.
    const starts = run.events.ofType('tool_call_start').filter((e) => e.agent.length === 1);
    expect(starts.map((e) => [e.agent, e.parentCallId])).toEqual([
      [['agent-1'], 'spawn-1'],
      [['agent-1'], 'spawn-1'],
      [['agent-1'], 'spawn-1'],
    ]);
    // Its turns too, so a frontend links it to its session from its first event of its own.
    const turns = run.events.ofType('turn_start').filter((e) => e.agent.length === 1);
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((e) => e.parentCallId === 'spawn-1')).toBe(true);
    // At depth 1 (of 2) it may spawn again; it is offered complete_task and its executor's tools.
    const offered = run.providers.write!.requests[0]!.tools.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['shell', 'write_file', 'complete_task', 'spawn_agent']));
    expect(run.providers.write!.requests[0]!.system).toContain('# Your task\nwrite');
    expect(run.exited).toHaveLength(1);
  });

  it('cannot widen its policy by any input: outside paths, .. tricks, network, read_only false', async () => {
    await using ws = await hostDir('subagent-widen-');
    await using outside = await hostDir('subagent-outside-');
    const allowed = path.join(ws.path, 'allowed');
    await mkdir(allowed);
    // A link inside the writable part pointing outside must not let a child write there.
    await symlink(outside.path, path.join(allowed, 'link'));
    const parentPolicy = testPolicy(ws.path, { write: { allow: [allowed] } });
    const tryWrites = (id: string) =>
      shellTurn(
        id,
        `echo x > ${outside.path}/${id}.txt; echo x > ${ws.path}/${id}.txt; echo x > allowed/link/${id}-l.txt; cat /proc/net/dev`,
      );
    const run = await runWithSubagents({
      parentPolicy,
      parent: [
        {
          steps: [
            spawnCall('s-out', { task: 'outside', write_paths: [outside.path, '/'], network: 'on' }),
            spawnCall('s-dots', {
              task: 'dots',
              write_paths: ['..', 'allowed/../..', 'allowed/link'],
              read_only: false,
            }),
          ],
        },
        done,
      ],
      children: {
        outside: [tryWrites('a'), completeTurn()],
        dots: [tryWrites('b'), completeTurn()],
      },
    });
    expect(run.outcome.status).toBe('complete');
    const byTask = (task: string) => run.spawned.find((c) => c.agentId === agentOf(run, task));
    const out = byTask('outside')!;
    const dots = byTask('dots')!;
    // Outside paths and `/` give nothing; `..` around the parent's root gives that root, no more.
    expect(out.policy.write.allow).toEqual([allowed]);
    expect(dots.policy.write.allow).toEqual([allowed]);
    for (const child of [out, dots]) {
      expect(child.policy.network.mode).toBe('off');
      expect(isNarrowerOrEqual(child.policy, parentPolicy)).toBe(true);
    }
    // Host effects: nothing outside `allowed`, nothing through the link.
    for (const id of ['a', 'b']) {
      expect(existsSync(path.join(outside.path, `${id}.txt`))).toBe(false);
      expect(existsSync(path.join(ws.path, `${id}.txt`))).toBe(false);
      expect(existsSync(path.join(outside.path, `${id}-l.txt`))).toBe(false);
    }
    // No network inside: only the loopback interface.
    const netdev = childResult(run, agentOf(run, 'outside'), 'a').output;
    expect(netdev).toContain('lo:');
    expect(netdev).not.toMatch(/eth\d+:/);
    const report = JSON.parse(parentResult(run, 's-out').output);
    expect(report.not_granted.join('\n')).toMatch(/network/);

    // A read-only parent: read_only false and write_paths get nothing writable.
    await using ro = await hostDir('subagent-ro-');
    const readOnlyParent = testPolicy(ro.path, { write: { allow: [] } });
    const roRun = await runWithSubagents({
      parentPolicy: readOnlyParent,
      parent: [{ steps: [spawnCall('s-ro', { task: 'ro', write_paths: ['.'], read_only: false })] }, done],
      children: { ro: [shellTurn('c', 'echo x > ro.txt'), completeTurn()] },
    });
    expect(roRun.spawned[0]!.policy.write.allow).toEqual([]);
    expect(roRun.providers.ro!.requests[0]!.tools.map((t) => t.name)).not.toContain('write_file');
    expect(childResult(roRun, 'agent-1', 'c').output).toMatch(/Read-only file system/);
    expect(existsSync(path.join(ro.path, 'ro.txt'))).toBe(false);
  });

  it('narrows policies as a pure function too, and never past the parent', () => {
    const ws = '/home/someone/project';
    const parent = testPolicy(ws, { protected: [`${ws}/.git`] });
    for (const wish of [
      { write_paths: ['/'] },
      { write_paths: ['../../..'] },
      { write_paths: ['.git/hooks'] },
      { write_paths: ['/etc', '~/.ssh', 'a/../../b'] },
      { network: 'on' as const },
      { read_only: false },
    ]) {
      const decision = childPolicyFor(parent, wish, { name: 'agent-1' });
      if (!decision.ok) throw new Error(decision.message);
      expect(isNarrowerOrEqual(decision.policy, parent), JSON.stringify(wish)).toBe(true);
      expect(decision.policy.write.allow.every((root) => root === ws || root.startsWith(`${ws}/`))).toBe(
        true,
      );
      expect(decision.policy.write.allow).not.toContain(`${ws}/.git/hooks`);
    }
    const glob = childPolicyFor(parent, { write_paths: ['src/*'] }, { name: 'agent-1' });
    expect(glob.ok).toBe(false);
  });

  it('keeps a planning agent (and its sub-agents) from changing anything but the plan file, shell and git included', async () => {
    await using ws = await hostDir('plan-');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', ws.path, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        encoding: 'utf8',
      });
    git('init', '-q');
    await mkdir(path.join(ws.path, 'src'));
    execFileSync('sh', ['-c', `echo one > ${ws.path}/src/a.txt`]);
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const loaded = await loadPolicy('plan', { workspace: ws.path });
    if (!loaded.ok) throw new Error(loaded.problem.message);
    const planPolicy = loaded.policy;
    await ensurePlanFile(ws.path);
    const executor = await ExecutorClient.spawn({
      policy: planPolicy,
      launcher: await launcherFor(planPolicy, 'required'),
    });
    try {
      const run = await runWithSubagents({
        parentPolicy: planPolicy,
        tools: executor,
        // What the runtime gives a planning agent's spawn_agent (its activity says it is planning).
        spawn: { readOnlyChildren: true },
        parent: [
          {
            steps: [
              { type: 'tool_call', id: 'w', name: 'write_file', input: { path: 'notes.txt', content: 'x' } },
              {
                type: 'tool_call',
                id: 'e',
                name: 'edit_file',
                input: { path: 'src/a.txt', old_string: 'one', new_string: 'two' },
              },
              { type: 'tool_call', id: 't', name: 'shell', input: { command: 'touch y.txt' } },
              { type: 'tool_call', id: 's', name: 'shell', input: { command: 'echo two > src/a.txt' } },
              {
                type: 'tool_call',
                id: 'g',
                name: 'shell',
                input: { command: 'git -c user.name=m -c user.email=m@m commit -q --allow-empty -m sneaky' },
              },
              { type: 'tool_call', id: 'gb', name: 'shell', input: { command: 'git branch sneaky' } },
              { type: 'tool_call', id: 'sk', name: 'shell', input: { command: 'echo x > .skate/other.md' } },
            ],
          },
          {
            steps: [
              {
                type: 'tool_call',
                id: 'p',
                name: 'write_file',
                input: { path: '.skate/plan.md', content: '# Plan\n1. do it\n' },
              },
              spawnCall('spawn-ro', { task: 'explore', write_paths: ['.skate/plan.md', 'src'] }),
            ],
          },
          done,
        ],
        children: {
          explore: [
            shellTurn('c1', 'echo child > .skate/plan.md; echo child > src/c.txt'),
            completeTurn('looked around'),
          ],
        },
      });
      expect(run.outcome.status).toBe('complete');
      const result = (id: string) => parentResult(run, id);
      expect(result('w')).toMatchObject({ isError: true, code: 'denied' });
      expect(result('e')).toMatchObject({ isError: true, code: 'denied' });
      for (const id of ['t', 's', 'sk']) expect(result(id).output, id).toMatch(/Read-only file system/);
      for (const id of ['g', 'gb']) {
        expect(result(id).output, id).toMatch(/Read-only file system[\s\S]*\[exit code 128\]/);
      }
      expect(result('p').isError).toBe(false);
      // The sub-agent of a planning session is read-only, whatever it asked for.
      expect(run.spawned[0]!.policy.write.allow).toEqual([]);
      expect(childResult(run, 'agent-1', 'c1').output).toMatch(/Read-only file system/);

      // On the host: only the plan changed.
      expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe('# Plan\n1. do it\n');
      expect(await readFile(path.join(ws.path, 'src', 'a.txt'), 'utf8')).toBe('one\n');
      for (const file of ['notes.txt', 'y.txt', '.skate/other.md', 'src/c.txt']) {
        expect(existsSync(path.join(ws.path, file)), file).toBe(false);
      }
      expect(git('rev-list', '--count', '--all').trim()).toBe('1');
      expect(git('branch', '--list').trim()).not.toContain('sneaky');
    } finally {
      await executor.shutdown();
    }
  });

  it('runs parallel sub-agents concurrently, each on its own executor, with interleaved tagged events', async () => {
    await using ws = await hostDir('subagent-par-');
    const script = (name: string) => [
      shellTurn(`${name}-1`, `echo ${name}1`),
      shellTurn(`${name}-2`, `echo ${name}2`),
      completeTurn(`${name} finished`),
    ];
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [
        {
          steps: [
            spawnCall('spawn-a', { task: 'a', read_only: true }),
            spawnCall('spawn-b', { task: 'b', read_only: true }),
          ],
        },
        done,
      ],
      children: { a: script('a'), b: script('b') },
      wrapChild: (provider) => delayTurns(provider, 150),
    });
    expect(run.outcome.status).toBe('complete');
    expect(parentResult(run, 'spawn-a').isError).toBe(false);
    expect(parentResult(run, 'spawn-b').isError).toBe(false);
    // Two executors, both alive at once.
    expect(new Set(run.spawned.map((c) => c.pid)).size).toBe(2);
    expect(run.lifecycle.slice(0, 2).every((step) => step.startsWith('spawned'))).toBe(true);
    const a = agentOf(run, 'a');
    const b = agentOf(run, 'b');
    const childEvents = run.events.events.filter((e) => e.agent.length === 1);
    const indexes = (id: string) => childEvents.flatMap((e, i) => (e.agent[0] === id ? [i] : []));
    const [ia, ib] = [indexes(a), indexes(b)];
    // Interleaved: each child has events after the other's first and before its last.
    expect(ia[0]!).toBeLessThan(ib[ib.length - 1]!);
    expect(ib[0]!).toBeLessThan(ia[ia.length - 1]!);
    for (const [id, spawnId] of [
      [a, 'spawn-a'],
      [b, 'spawn-b'],
    ] as const) {
      const starts = run.events.ofType('tool_call_start').filter((e) => e.agent[0] === id);
      expect(starts).toHaveLength(3);
      expect(starts.every((e) => e.parentCallId === spawnId)).toBe(true);
    }
  });

  it('nests sub-agents to the depth limit, each narrower than its parent, events tagged with the whole path', async () => {
    await using ws = await hostDir('subagent-nest-');
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('spawn-mid', { task: 'mid', write_paths: ['mid'] })] }, done],
      children: {
        mid: [
          { steps: [spawnCall('spawn-leaf', { task: 'leaf', write_paths: ['mid/leaf', 'elsewhere'] })] },
          completeTurn('mid done'),
        ],
        leaf: [shellTurn('l1', 'echo leaf > mid/leaf/x.txt; echo no > mid/y.txt'), completeTurn('leaf done')],
      },
    });
    expect(run.outcome.status).toBe('complete');
    const [mid, leaf] = [
      run.spawned.find((c) => c.agent.length === 1)!,
      run.spawned.find((c) => c.agent.length === 2)!,
    ];
    expect(leaf.agent).toEqual(['agent-1', 'agent-1']);
    expect(leaf.policy.write.allow).toEqual([path.join(ws.path, 'mid', 'leaf')]);
    expect(isNarrowerOrEqual(leaf.policy, mid.policy)).toBe(true);
    expect(await readFile(path.join(ws.path, 'mid', 'leaf', 'x.txt'), 'utf8')).toBe('leaf\n');
    expect(existsSync(path.join(ws.path, 'mid', 'y.txt'))).toBe(false);
    expect(existsSync(path.join(ws.path, 'elsewhere'))).toBe(false);
    const leafStart = run.events.ofType('tool_call_start').find((e) => e.id === 'l1');
    expect(leafStart).toMatchObject({ agent: ['agent-1', 'agent-1'], parentCallId: 'spawn-leaf' });
    expect(run.providers.leaf!.requests[0]!.tools.map((t) => t.name)).not.toContain('spawn_agent');
    // The leaf's result reached the mid agent, and both children's usage the parent.
    expect(JSON.parse(childResult(run, 'agent-1', 'spawn-leaf').output).result.summary).toBe('leaf done');
  });

  it('gives an invalid result one repair turn, then accepts the repaired one', async () => {
    await using ws = await hostDir('subagent-repair-');
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [
        { steps: [spawnCall('spawn-r', { task: 'review', read_only: true, result_schema: 'reviewer' })] },
        done,
      ],
      children: {
        review: [
          {
            steps: [
              {
                type: 'tool_call',
                id: 'bad',
                name: 'complete_task',
                input: { status: 'done', issues: 'none' },
              },
            ],
          },
          {
            steps: [
              {
                type: 'tool_call',
                id: 'good',
                name: 'complete_task',
                input: {
                  status: 'completed',
                  summary: 'one issue',
                  issues: [{ severity: 'major', file: 'a.ts', line: 3, description: 'off by one' }],
                },
              },
            ],
          },
        ],
      },
    });
    const child = run.providers.review!;
    expect(child.requests[0]!.tools.find((t) => t.name === 'complete_task')?.inputSchema).toMatchObject({
      properties: { issues: { type: 'array' } },
    });
    const repair = JSON.stringify(child.requests[1]!.messages.at(-1));
    expect(repair).toMatch(/complete_task input is invalid/);
    expect(repair).toMatch(/status/);
    const result = parentResult(run, 'spawn-r');
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.output).result).toEqual({
      status: 'completed',
      summary: 'one issue',
      issues: [{ severity: 'major', file: 'a.ts', line: 3, description: 'off by one' }],
    });
  });

  it('turns a second invalid result, a missing result, a turn cap and a time budget into typed failures', async () => {
    await using ws = await hostDir('subagent-fail-');
    const invalid = {
      steps: [{ type: 'tool_call' as const, id: 'x', name: 'complete_task', input: { status: 'nope' } }],
    };
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [
        {
          steps: [
            spawnCall('s-invalid', { task: 'invalid', read_only: true }),
            spawnCall('s-silent', { task: 'silent', read_only: true }),
            spawnCall('s-busy', { task: 'busy', read_only: true }),
            spawnCall('s-tools', { task: 'tools', tools: ['read_file', 'grep'] }),
            spawnCall('s-badtools', { task: 'badtools', tools: ['read_file', 'teleport'] }),
          ],
        },
        done,
      ],
      children: {
        invalid: [invalid, { steps: [{ ...invalid.steps[0]!, id: 'y' }] }],
        silent: [
          { steps: [{ type: 'text', text: 'I am done.' }] },
          { steps: [{ type: 'text', text: 'Really.' }] },
        ],
        busy: [shellTurn('b1', 'true'), shellTurn('b2', 'true'), shellTurn('b3', 'true')],
        tools: [shellTurn('t1', 'echo x > t.txt'), completeTurn()],
        badtools: [],
      },
      spawn: { maxTurns: 2, maxDepth: 1 },
    });
    expect(run.outcome.status).toBe('complete');
    const failure = (id: string) => parentResult(run, id);
    expect(failure('s-invalid')).toMatchObject({ isError: true, code: 'failed' });
    expect(failure('s-invalid').output).toMatch(
      /^sub-agent failed \(schema_invalid\): its result was invalid twice/,
    );
    expect(failure('s-silent')).toMatchObject({ isError: true, code: 'failed' });
    expect(failure('s-silent').output).toMatch(/^sub-agent failed \(schema_invalid\)/);
    // The reminder went to the silent child as its next user message.
    expect(JSON.stringify(run.providers.silent!.requests[1]!.messages.at(-1))).toMatch(
      /without calling complete_task/,
    );
    expect(failure('s-busy').output).toMatch(/^sub-agent failed \(turn_cap\): it used its 2 turns/);
    // A tool filter is what the child is offered and all it may call; an unknown name is refused up front.
    expect(run.providers.tools!.requests[0]!.tools.map((t) => t.name)).toEqual([
      'read_file',
      'grep',
      'complete_task',
    ]);
    expect(childResult(run, agentOf(run, 'tools'), 't1')).toMatchObject({
      isError: true,
      code: 'unknown_tool',
    });
    expect(existsSync(path.join(ws.path, 't.txt'))).toBe(false);
    expect(failure('s-badtools')).toMatchObject({ isError: true, code: 'invalid_input' });
    expect(failure('s-badtools').output).toMatch(/unknown tools teleport/);
    // At the depth limit (1 here) a child may not spawn again.
    expect(run.providers.busy!.requests[0]!.tools.map((t) => t.name)).not.toContain('spawn_agent');
    expect(run.exited).toHaveLength(5);

    const slow = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('s-slow', { task: 'slow', read_only: true })] }, done],
      children: { slow: [{ steps: [{ type: 'pause' }] }] },
      spawn: { budgetMs: 1_500 },
    });
    expect(parentResult(slow, 's-slow')).toMatchObject({ isError: true, code: 'timeout' });
    expect(parentResult(slow, 's-slow').output).toMatch(
      /^sub-agent failed \(timeout\): it ran out of its time budget/,
    );
    expect(slow.exited).toHaveLength(1);
  });

  it('ends a child at its time budget even when a full garbage collection runs before the deadline', async () => {
    // The budget used to be AbortSignal.timeout inside AbortSignal.any, which Node holds only weakly:
    // a mark-compact before the deadline collected it and cancelled its timer (nodejs/node#57736),
    // so a child waiting on its model never ended. This is the typed-failures test's old hang, made certain.
    await using ws = await hostDir('subagent-gc-');
    let collectedBeforeDeadline = false;
    const run = await runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('s-gc', { task: 'slow', read_only: true })] }, done],
      children: { slow: [{ steps: [{ type: 'pause' }] }] },
      wrapChild: (provider) => ({
        name: provider.name,
        contextWindow: (model) => provider.contextWindow(model),
        stream(request, signal) {
          // In a later task: what this one dereferenced (combining signals) stays alive until it ends.
          setImmediate(() => {
            forceGc();
            collectedBeforeDeadline = !signal.aborted;
          });
          return provider.stream(request, signal);
        },
      }),
      spawn: { budgetMs: 2_000 },
    });
    expect(collectedBeforeDeadline).toBe(true);
    expect(parentResult(run, 's-gc')).toMatchObject({ isError: true, code: 'timeout' });
    expect(run.exited).toHaveLength(1);
  }, 15_000);

  it('cancels children with the parent and leaves no executor process behind', async () => {
    await using ws = await hostDir('subagent-cancel-');
    const controller = new AbortController();
    const tracked: number[] = [];
    let firstTurns = 0;
    const runPromise = runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('c-1', { task: 'one' }), spawnCall('c-2', { task: 'two' })] }, done],
      children: { one: [{ steps: [{ type: 'pause' }] }], two: [{ steps: [{ type: 'pause' }] }] },
      wrapChild: (provider) => ({
        name: provider.name,
        contextWindow: (model) => provider.contextWindow(model),
        stream(request, signal) {
          firstTurns++;
          return provider.stream(request, signal);
        },
      }),
      spawn: {
        onChildSpawned: (info) => {
          if (info.pid !== undefined) tracked.push(info.pid);
        },
      },
      signal: controller.signal,
    });
    // Wait until both children are mid-turn, then note every process of their sandboxes and cancel.
    while (firstTurns < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const pid of [...tracked]) tracked.push(...(await processDescendants(pid)));
    expect(tracked.length).toBeGreaterThanOrEqual(4);
    controller.abort();
    const run = await runPromise;
    expect(run.outcome.status).toBe('cancelled');
    for (const pid of tracked) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
  });
});

describe('ask_user', () => {
  const call = (inbox = createCommandInbox().inbox, emitted = createCollectingEmitter()): MetaToolCall => ({
    callId: 'ask-1',
    input: {
      questions: [{ question: 'Which database?', options: ['sqlite', 'postgres'] }, { question: 'Name?' }],
    },
    signal: new AbortController().signal,
    emit: (event) => emitted.emit(event),
    inbox,
    agent: [],
    addUsage: () => undefined,
    endRun: () => undefined,
  });

  it('returns an error at once when nobody can answer, and never waits', async () => {
    const neverAnswers = { waitFor: () => new Promise<never>(() => undefined) };
    const tool = createAskUserTool({ canAsk: false });
    const started = performance.now();
    const result = await tool.run(call(neverAnswers));
    expect(performance.now() - started).toBeLessThan(100);
    expect(result).toMatchObject({ isError: true });
    expect(result.output).toMatch(/No one can answer.*best judgement.*assumptions/s);
  });

  it('asks through ask_user_request and pairs each question with its answer', async () => {
    const { inbox, send } = createCommandInbox();
    const emitted = createCollectingEmitter((event) => {
      if (event.type === 'ask_user_request') {
        send({ type: 'ask_user_response', requestId: event.requestId, answers: ['postgres', 'skate'] });
      }
    });
    const result = await createAskUserTool({ canAsk: true }).run(call(inbox, emitted));
    expect(emitted.first('ask_user_request')?.questions).toHaveLength(2);
    expect(result.isError).toBe(false);
    expect(result.output).toContain('Q: Which database?\nA: postgres');
    expect(result.output).toContain('Q: Name?\nA: skate');
  });
});

function agentOf(run: SpawnRun, task: string): string {
  const id = run.agentFor[task];
  if (!id) throw new Error(`no child for task ${task}`);
  return id;
}
