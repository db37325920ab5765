import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SKATE_GITIGNORE } from '../../harness/skate-dir.js';
import { RunResult } from '../../shared/run-result.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { planModeReplies } from '../support/plan-mode-replies.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

function agentEnv(baseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-plan-policy', ANTHROPIC_BASE_URL: baseUrl, ...extra };
}

// The plan policy's one writable path must exist to be bound; the sandbox launch makes it, so every way
// of choosing the policy gets a writable plan, not only `skate plan`. Workspaces outside /tmp: a
// read-only sandbox has a private /tmp.
describe('the plan policy, however it is chosen', () => {
  it('skate -p --policy plan: the model writes the plan; nothing else lands on the host', async () => {
    await using ws = await hostDir('plan-policy-');
    const plan = '# Plan\n1. Do it.\n';
    await using api = await fakeMessagesApi(planModeReplies(plan));
    const result = await runCli(
      ['-p', 'plan it', '--policy', 'plan', '--workspace', ws.path, '--output-format', 'json'],
      { env: agentEnv(api.url), timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(RunResult.parse(JSON.parse(result.stdout)).finalMessage).toBe('The plan is written.');
    expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe(plan);
    // Made by the launch as `skate plan` makes it: ignored by git, and nothing else.
    expect(await readFile(path.join(ws.path, '.skate', '.gitignore'), 'utf8')).toBe(SKATE_GITIGNORE);
    expect(existsSync(path.join(ws.path, 'outside.txt'))).toBe(false);
    const refusedWrite = JSON.stringify(api.requests[1]!.body!.messages.at(-1));
    expect(refusedWrite).toMatch(/Read-only file system/);
  });

  it('~/.skate/settings.json choosing plan: a shell command writes the plan in place', async () => {
    await using home = await hostDir('plan-home-');
    await using ws = await hostDir('plan-settings-');
    await writeSkateSettings(home.path, { policy: 'plan' });
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_plan',
            name: 'shell',
            input: { command: "printf '# From the shell\\n' > .skate/plan.md" },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Planned.' }] },
    ]);
    const result = await runCli(['-p', 'plan it', '--workspace', ws.path, '--output-format', 'json'], {
      env: agentEnv(api.url, { HOME: home.path }),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe('# From the shell\n');
  });

  it('refuses a plan file or .skate that is a symbolic link: the link’s target is never created or written', async () => {
    await using ws = await hostDir('plan-link-');
    await using elsewhere = await hostDir('plan-elsewhere-');
    const target = path.join(elsewhere.path, 'bashrc');
    await writeFile(target, 'original\n');
    await mkdir(path.join(ws.path, '.skate'));
    await symlink(target, path.join(ws.path, '.skate', 'plan.md'));
    await using api = await fakeMessagesApi(planModeReplies('pwned\n'));
    const linked = await runCli(['-p', 'plan it', '--policy', 'plan', '--workspace', ws.path], {
      env: agentEnv(api.url),
      timeoutMs: 60_000,
    });
    expect(linked.code).not.toBe(0);
    expect(linked.stderr).toMatch(/plan\.md is a symbolic link/);
    expect(await readFile(target, 'utf8')).toBe('original\n');

    await using ws2 = await hostDir('plan-link-dir-');
    await symlink(elsewhere.path, path.join(ws2.path, '.skate'));
    const dirLinked = await runCli(['-p', 'plan it', '--policy', 'plan', '--workspace', ws2.path], {
      env: agentEnv(api.url),
      timeoutMs: 60_000,
    });
    expect(dirLinked.code).not.toBe(0);
    expect((await readdir(elsewhere.path)).sort()).toEqual(['bashrc']);
    expect(api.requests).toHaveLength(0);
  });
});
