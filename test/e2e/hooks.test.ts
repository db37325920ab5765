import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { EngineEvent } from '../../shared/engine-events.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const FIXTURES = path.join(projectRoot(), 'test', 'fixtures', 'hooks');
const script = (name: string): string => path.join(FIXTURES, name);

function events(stdout: string): EngineEvent[] {
  return (
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string })
      // Claude Code's own lines (system, whole assistant/user messages, result) sit beside Skate's events.
      .filter((line) => !['system', 'assistant', 'user', 'result'].includes(line.type))
      .map((line) => EngineEvent.parse(line))
  );
}

/** Everything the model was sent in a request, as one string, to look for what a hook added. */
function sent(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body?.messages ?? []);
}

const done = (id: string): FakeReply =>
  call(id, 'complete_task', {
    status: 'completed',
    summary: 'done',
    files_changed: [],
    tests_run: [],
    follow_ups: [],
  });

const preToolUse = (command: string) => ({
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, timeout: 30 }] }] },
});

describe('hooks in Claude Code format', () => {
  for (const [language, file] of [
    ['bash + jq', 'block-rm-rf.sh'],
    ['python', 'block-rm-rf.py'],
  ] as const) {
    it(`a PreToolUse ${language} script blocks rm -rf in the main agent, and the model reads its stderr`, async () => {
      await using home = await hostDir('hooks-home-');
      await using ws = await hostDir('hooks-ws-');
      await mkdir(path.join(ws.path, 'keep'));
      await writeSkateSettings(home.path, preToolUse(script(file)));
      await using api = await fakeMessagesApi([
        call('tu_1', 'shell', { command: 'rm -rf keep' }),
        call('tu_2', 'shell', { command: 'echo still here' }),
        text('I was not allowed to delete it.'),
      ]);
      const result = await runCli(
        ['-p', 'clean up', '--output-format', 'stream-json', '--workspace', ws.path],
        { env: cliEnv({ home: home.path, api: api.url }), timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
      expect(sent(api.requests[1])).toContain('Blocked by policy');
      const all = events(result.stdout);
      const decisions = all.filter((event) => event.type === 'hook_decision');
      expect(decisions.map((event) => event.outcome)).toEqual(['deny', 'none']);
      expect(decisions[0]).toMatchObject({
        event: 'PreToolUse',
        toolName: 'shell',
        source: 'user',
        exitCode: 2,
      });
      expect(all).toContainEqual(expect.objectContaining({ type: 'action_blocked', by: 'hook', id: 'tu_1' }));
      expect(all).toContainEqual(
        expect.objectContaining({
          type: 'tool_call_result',
          id: 'tu_2',
          output: expect.stringContaining('still here'),
        }),
      );
    }, 90_000);
  }

  it("shows a hook's decision as one line in -p's text output", async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await mkdir(path.join(ws.path, 'keep'));
    await writeSkateSettings(home.path, preToolUse(script('block-rm-rf.sh')));
    await using api = await fakeMessagesApi([
      call('tu_1', 'shell', { command: 'rm -rf keep' }),
      text('Refused.'),
    ]);
    const result = await runCli(['-p', 'clean up', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(
      /hook PreToolUse\(shell\) denied it: .*Blocked by policy/,
    );
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
  }, 60_000);

  it('fires and is obeyed in a sub-agent two levels down', async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await mkdir(path.join(ws.path, 'keep'));
    await writeSkateSettings(home.path, preToolUse(script('block-rm-rf.sh')));
    await using api = await fakeMessagesApi([
      call('m1', 'spawn_agent', { task: 'delegate the cleanup' }),
      call('c1', 'spawn_agent', { task: 'remove keep' }),
      call('g1', 'shell', { command: 'rm -rf keep' }),
      done('g2'),
      done('c2'),
      text('The cleanup was refused.'),
    ]);
    const result = await runCli(
      ['-p', 'clean up', '--output-format', 'stream-json', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 90_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
    const denied = events(result.stdout).filter(
      (event) => event.type === 'hook_decision' && event.outcome === 'deny',
    );
    expect(denied).toHaveLength(1);
    expect(denied[0]?.agent).toEqual(['agent-1', 'agent-1']);
    // The grandchild's model read the hook's reason.
    expect(sent(api.requests[3])).toContain('Blocked by policy');
  }, 120_000);

  it('runs a PostToolUse formatter, a UserPromptSubmit context hook and a Stop hook that sends the agent back once', async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await writeSkateSettings(home.path, {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: script('prompt-context.sh') }] }],
        // The formatter writes the workspace: the user gives it the execute policy.
        PostToolUse: [
          {
            matcher: 'Edit|Write',
            hooks: [{ type: 'command', command: script('format-after-edit.sh'), policy: 'execute' }],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: script('stop-once.sh') }] }],
      },
    });
    await using api = await fakeMessagesApi([
      call('w1', 'write_file', { path: 'a.txt', content: 'one   \ntwo\t\n' }),
      text('Written.'),
      text('Tests run; done.'),
    ]);
    const result = await runCli(
      ['-p', 'write a.txt', '--output-format', 'stream-json', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(ws.path, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(sent(api.requests[0])).toContain('the test command is npm test');
    expect(api.requests).toHaveLength(3);
    expect(sent(api.requests[2])).toContain('Run the tests before you stop.');
    const outcomes = events(result.stdout)
      .filter((event) => event.type === 'hook_decision')
      .map((event) => `${event.event}:${event.outcome}`);
    expect(outcomes).toEqual(['UserPromptSubmit:context', 'PostToolUse:none', 'Stop:block', 'Stop:none']);
  }, 90_000);

  it("runs a workspace's hooks only with consent to that version of the file", async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await writeSkateSettings(ws.path, {
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo workspace-hook-ran' }] }] },
    });
    await using api = await fakeMessagesApi([text('a'), text('b'), text('c'), text('d')]);
    const run = (...flags: string[]) =>
      runCli(['-p', 'hi', '--output-format', 'stream-json', '--workspace', ws.path, ...flags], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      });

    const refused = await run();
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain('need your consent');
    expect(sent(api.requests[0])).not.toContain('workspace-hook-ran');

    const once = await run('--trust-workspace-hooks');
    expect(once.code, once.stderr).toBe(0);
    expect(sent(api.requests[1])).toContain('workspace-hook-ran');

    const trusted = await runCli(['hooks', 'trust', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    const after = await run();
    expect(sent(api.requests[2])).toContain('workspace-hook-ran');
    expect(after.stderr).not.toContain('need your consent');

    // A changed file is a new version: no consent until given again.
    await writeSkateSettings(ws.path, {
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo changed-hook-ran' }] }] },
    });
    const changed = await run();
    expect(changed.stderr).toContain('need your consent');
    expect(sent(api.requests[3])).not.toContain('changed-hook-ran');

    const listed = await runCli(['hooks', 'list', '--workspace', ws.path, '--json'], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        event: 'UserPromptSubmit',
        command: 'echo changed-hook-ran',
        source: 'workspace',
        consent: 'not given',
      }),
    ]);
  }, 120_000);

  it('a run a hook blocks exits 4 (blocked), with a result line saying so: a refused prompt, continue: false', async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await writeSkateSettings(home.path, {
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              {
                type: 'command',
                command: 'grep -q forbidden && { echo "not that prompt" >&2; exit 2; }; exit 0',
              },
            ],
          },
        ],
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'echo \'{"continue": false, "stopReason": "no commands today"}\'' },
            ],
          },
        ],
      },
    });
    await using api = await fakeMessagesApi([
      call('tu_1', 'shell', { command: 'touch made' }),
      text('unreached'),
    ]);
    const run = (prompt: string) =>
      runCli(['-p', prompt, '--output-format', 'stream-json', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      });
    const resultOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? '');

    const refused = await run('a forbidden prompt');
    expect(refused.code, refused.stderr).toBe(4);
    expect(resultOf(refused.stdout)).toMatchObject({
      type: 'result',
      is_error: true,
      errorCode: 'blocked',
      error: expect.stringContaining('not that prompt'),
    });
    expect(api.requests).toHaveLength(0);

    const stopped = await run('make a file');
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(resultOf(stopped.stdout)).toMatchObject({
      is_error: true,
      errorCode: 'blocked',
      error: expect.stringContaining('no commands today'),
    });
    expect(existsSync(path.join(ws.path, 'made'))).toBe(false);
    expect(api.requests).toHaveLength(1);
  }, 90_000);

  it("fires for ask_user and spawn_agent themselves, a sub-agent's complete_task, and at each lifecycle event", async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    const listen = [{ hooks: [{ type: 'command', command: 'cat > /dev/null' }] }];
    await writeSkateSettings(home.path, {
      hooks: {
        SessionStart: listen,
        UserPromptSubmit: listen,
        PreToolUse: listen,
        PostToolUse: listen,
        // Claude Code's PermissionRequest allow: the call runs without a person to approve it.
        PermissionRequest: [
          {
            matcher: 'Bash|Task',
            hooks: [
              {
                type: 'command',
                command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`,
              },
            ],
          },
        ],
        SubagentStop: listen,
        Stop: listen,
        SessionEnd: listen,
      },
    });
    const answers = path.join(home.path, 'answers.json');
    await writeFile(answers, JSON.stringify([['postgres']]));
    await using api = await fakeMessagesApi([
      call('m1', 'ask_user', {
        questions: [{ question: 'Which database?', options: ['postgres', 'sqlite'] }],
      }),
      call('m2', 'spawn_agent', { task: 'look around' }),
      done('c1'),
      call('m3', 'shell', { command: 'touch made' }),
      text('Done.'),
    ]);
    const result = await runCli(
      [
        '-p',
        'set it up',
        '--output-format',
        'stream-json',
        '--approval',
        'ask',
        '--answers',
        answers,
        '--workspace',
        ws.path,
      ],
      { env: cliEnv({ home: home.path, api: api.url }), timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    // Allowed by the PermissionRequest hook in a run where nobody could have approved it.
    expect(existsSync(path.join(ws.path, 'made'))).toBe(true);
    const fired = events(result.stdout)
      .filter((event) => event.type === 'hook_decision')
      .map(
        (event) =>
          `${event.agent.join('/') || 'main'} ${event.event}${event.toolName ? `(${event.toolName})` : ''}`,
      );
    expect(fired).toEqual(
      expect.arrayContaining([
        'main SessionStart',
        'main UserPromptSubmit',
        'main PreToolUse(ask_user)',
        'main PostToolUse(ask_user)',
        'main PreToolUse(spawn_agent)',
        'main PermissionRequest(spawn_agent)',
        'agent-1 PreToolUse(complete_task)',
        'agent-1 PostToolUse(complete_task)',
        'agent-1 SubagentStop',
        'main PostToolUse(spawn_agent)',
        'main PreToolUse(shell)',
        'main PermissionRequest(shell)',
        'main PostToolUse(shell)',
        'main Stop',
        'main SessionEnd',
      ]),
    );
    // The order a script sees: the session opens first and closes last.
    expect(fired[0]).toBe('main SessionStart');
    expect(fired.at(-1)).toBe('main SessionEnd');
  }, 120_000);

  it('fires and is obeyed in a planning agent (skate plan)', async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await writeSkateSettings(home.path, {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Write',
            hooks: [{ type: 'command', command: 'echo "plans are written by hand here" >&2; exit 2' }],
          },
        ],
      },
    });
    await using api = await fakeMessagesApi([
      call('p1', 'write_file', { path: '.skate/plan.md', content: '# plan' }),
      text('I could not write the plan.'),
    ]);
    const result = await runCli(
      ['plan', 'plan it', '--output-format', 'stream-json', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    // The plan sandbox makes the file it binds; the denied write never reached it.
    const plan = path.join(ws.path, '.skate', 'plan.md');
    expect(existsSync(plan) ? await readFile(plan, 'utf8') : '').not.toContain('# plan');
    const denied = events(result.stdout).filter(
      (event) => event.type === 'hook_decision' && event.outcome === 'deny',
    );
    expect(denied).toEqual([
      expect.objectContaining({ event: 'PreToolUse', toolName: 'write_file', agent: [] }),
    ]);
    expect(sent(api.requests[1])).toContain('plans are written by hand here');
  }, 90_000);

  it("a confined hook reads the session's transcript at transcript_path", async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    // Denies the call when it finds the prompt in the transcript: a deny proves the read.
    const command = `f=$(jq -r .transcript_path); test -f "$f" && grep -q zebra-marker "$f" && { echo "read the transcript" >&2; exit 2; }; exit 0`;
    await writeSkateSettings(home.path, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] },
    });
    await using api = await fakeMessagesApi([call('tu_1', 'shell', { command: 'echo hi' }), text('ok')]);
    const result = await runCli(
      ['-p', 'say zebra-marker', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: api.url }), timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const decisions = events(result.stdout).filter((event) => event.type === 'hook_decision');
    expect(decisions).toEqual([expect.objectContaining({ outcome: 'deny', reason: 'read the transcript' })]);
  }, 60_000);

  it('--no-hooks and disableAllHooks run none', async () => {
    await using home = await hostDir('hooks-home-');
    await using ws = await hostDir('hooks-ws-');
    await mkdir(path.join(ws.path, 'gone'));
    await writeSkateSettings(home.path, preToolUse(script('block-rm-rf.sh')));
    await using api = await fakeMessagesApi([call('tu_1', 'shell', { command: 'rm -rf gone' }), text('ok')]);
    const result = await runCli(
      ['-p', 'x', '--output-format', 'stream-json', '--no-hooks', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'gone'))).toBe(false);
    expect(events(result.stdout).some((event) => event.type === 'hook_decision')).toBe(false);

    // The setting, in the user's file.
    await mkdir(path.join(ws.path, 'gone-too'));
    await writeSkateSettings(home.path, { ...preToolUse(script('block-rm-rf.sh')), disableAllHooks: true });
    await using api2 = await fakeMessagesApi([
      call('tu_2', 'shell', { command: 'rm -rf gone-too' }),
      text('ok'),
    ]);
    const off = await runCli(['-p', 'x', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api2.url }),
      timeoutMs: 60_000,
    });
    expect(off.code, off.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'gone-too'))).toBe(false);
    expect(events(off.stdout).some((event) => event.type === 'hook_decision')).toBe(false);
  }, 90_000);
});
