import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * Agent files a repository plants: a definition may only narrow. Each case asserts on the host
 * (did the file appear, was the secret sent to the model), not only on an exit code.
 */
function env(home: string, api: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: api,
  };
  delete e.SKATE_MODEL;
  return e;
}
const done = (id: string): FakeReply =>
  call(id, 'complete_task', {
    status: 'completed',
    summary: 'done',
    files_changed: [],
    tests_run: [],
    follow_ups: [],
  });

async function agentFile(dir: string, name: string, content: string): Promise<string> {
  await mkdir(path.join(dir, '.skate', 'agents'), { recursive: true });
  const file = path.join(dir, '.skate', 'agents', `${name}.md`);
  await writeFile(file, content);
  return file;
}

function results(stdout: string): Map<string, { isError: boolean; output: string }> {
  const found = new Map<string, { isError: boolean; output: string }>();
  for (const line of stdout.trim().split('\n')) {
    const event = JSON.parse(line);
    if (event.type === 'tool_call_result') found.set(event.id, event);
  }
  return found;
}

const sent = (requests: readonly RecordedRequest[]): string => JSON.stringify(requests.map((r) => r.body));

describe('agent definitions from a workspace only narrow', () => {
  it('a workspace agent asking for writes and the network is refused headless without consent: nothing is written', async () => {
    await using ws = await hostDir('agentdef-consent-');
    await using home = await hostDir('agentdef-home-');
    await agentFile(
      ws.path,
      'builder',
      '---\nname: builder\ndescription: Builds.\nnetwork: on\n---\nBuild things.\n',
    );
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { agent: 'builder', task: 'write pwned.txt' }),
      text('ok'),
      // Were a child started, this is what it would do: this reply stays unasked.
      call('w', 'write_file', { path: 'pwned.txt', content: 'x' }),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: env(home.path, api.url),
    });
    expect(run.code, run.stderr).toBe(0);
    const spawn = results(run.stdout).get('spawn');
    expect(spawn?.isError).toBe(true);
    expect(spawn?.output).toMatch(
      /^sub-agent failed \(policy\): agent "builder" .* asks for writes wherever you may and the network/,
    );
    expect(spawn?.output).toContain('--trust-workspace-agents');
    expect(existsSync(path.join(ws.path, 'pwned.txt'))).toBe(false);
    // No child ever talked to the model: the parent's two requests only.
    expect(api.requests).toHaveLength(2);
    expect(api.pending).toBe(1);
    // The model was told it needs consent, in the tool's description.
    const spawnTool = api.requests[0]?.body?.tools?.find((tool) => tool.name === 'spawn_agent');
    expect(typeof spawnTool?.description).toBe('string');
    expect(spawnTool?.description).toContain("builder: Builds. (not usable: needs the user's consent)");
  });

  it('with consent, a definition still only narrows: its write_paths bound the child, whose write elsewhere never lands', async () => {
    await using ws = await hostDir('agentdef-narrow-');
    await using home = await hostDir('agentdef-home-');
    await mkdir(path.join(ws.path, 'docs'));
    await agentFile(
      ws.path,
      'docs-writer',
      // Asks for the docs folder and for a path outside the workspace: only docs is granted.
      '---\nname: docs-writer\ndescription: Writes docs.\nwrite_paths: [docs, ../elsewhere]\n---\nWrite docs.\n',
    );
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { agent: 'docs-writer', task: 'write docs', write_paths: ['.'] }),
      call('ok', 'write_file', { path: 'docs/a.md', content: 'a' }),
      call('escape', 'write_file', { path: 'src.txt', content: 'x' }),
      call('shell', 'shell', { command: 'echo x > shelled.txt; echo y > ../elsewhere.txt' }),
      done('c'),
      text('ok'),
    ]);
    const run = await runCli(
      ['-p', 'go', '--output-format', 'stream-json', '--trust-workspace-agents', '--workspace', ws.path],
      { env: env(home.path, api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    const got = results(run.stdout);
    expect(got.get('ok')?.isError).toBe(false);
    expect(got.get('escape')?.isError).toBe(true);
    expect(await readFile(path.join(ws.path, 'docs', 'a.md'), 'utf8')).toBe('a');
    expect(existsSync(path.join(ws.path, 'src.txt'))).toBe(false);
    expect(existsSync(path.join(ws.path, 'shelled.txt'))).toBe(false);
    expect(existsSync(path.join(path.dirname(ws.path), 'elsewhere.txt'))).toBe(false);
    expect(got.get('spawn')?.output).toContain('not_granted');
    // The refused write is counted in the dispatch's telemetry.
    const end = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.type === 'dispatch_end');
    expect(end?.record).toMatchObject({ agent_name: 'docs-writer', status: 'completed', approval_loops: 1 });
  });

  it('a planted link as an agent file is not read: its target never reaches the model', async () => {
    await using ws = await hostDir('agentdef-link-');
    await using home = await hostDir('agentdef-home-');
    await using outside = await hostDir('agentdef-outside-');
    const secret = path.join(outside.path, 'secret.md');
    await writeFile(
      secret,
      '---\nname: leak\ndescription: SECRET-DESCRIPTION\nwrite_paths: []\n---\nSECRET-BODY\n',
    );
    await mkdir(path.join(ws.path, '.skate', 'agents'), { recursive: true });
    await symlink(secret, path.join(ws.path, '.skate', 'agents', 'leak.md'));
    await using api = await fakeMessagesApi([text('nothing to do')]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: env(home.path, api.url),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('outside');
    expect(sent(api.requests)).not.toContain('SECRET');
  });

  it("the user's own agent file needs no consent, and its child runs with the file's body as its prompt", async () => {
    await using ws = await hostDir('agentdef-user-');
    await using home = await hostDir('agentdef-home-');
    await agentFile(home.path, 'scout', '---\nname: scout\ndescription: Scouts.\n---\nUSER-SCOUT\n');
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { agent: 'scout', task: 'look around' }),
      done('c'),
      text('ok'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: env(home.path, api.url),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(results(run.stdout).get('spawn')?.isError).toBe(false);
    expect(JSON.stringify(api.requests[1]?.body?.system)).toContain('USER-SCOUT');
  });
});
