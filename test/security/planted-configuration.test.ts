import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { projectRoot } from '../../harness/project-paths.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { ServeErrorBody, SessionInfo } from '../../shared/serve-api.js';
import { type FakeMessagesApi, type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { type CliResult, runCli } from '../support/run-cli.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';
import { allSseMessages, startSkateServe } from '../support/skate-serve.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import type { TempDir } from '../support/temp-dir.js';

/**
 * Configuration and instructions planted for the next run (issue #20, items 2 and 3): a workspace
 * file may only narrow what the user chose, whatever the flags, and what Skate reads from a
 * workspace on its own initiative (settings, AGENTS.md, the plan) is read as the agent's policy
 * allows, never through a link to a denied or outside path. Every test asserts on the host: what
 * the model API received, what a host-only server saw, what reached the terminal.
 */

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const KEY = 'sk-ant-test-key-planted-configuration';

/** A secret no request, output or error may ever carry; distinct per test. */
function secret(what: string): string {
  return `SECRET-${what}-${randomBytes(12).toString('hex')}`;
}

/** Every byte that left the harness for the model: bodies and headers of all requests. */
function sentToModel(api: FakeMessagesApi): string {
  return JSON.stringify(api.requests.map((request) => ({ body: request.body, headers: request.headers })));
}

function expectNowhere(value: string, api: FakeMessagesApi, ...outputs: CliResult[]): void {
  // The marker is the secret's first bytes: even a JSON parse error's short excerpt would carry it.
  const marker = value.slice(0, 10);
  expect(sentToModel(api)).not.toContain(marker);
  for (const output of outputs) expect(output.stdout + output.stderr).not.toContain(marker);
}

/** A HOME and a workspace both visible (read-only) inside the sandbox; the key in the HOME's ~/.ssh. */
async function homeAndWorkspace(): Promise<{
  home: TempDir;
  ws: string;
  key: string;
  env: NodeJS.ProcessEnv;
}> {
  const home = await hostDir('planted-home-');
  const ws = path.join(home.path, 'project');
  await mkdir(path.join(home.path, '.ssh'), { recursive: true });
  await mkdir(ws);
  const key = secret('SSHKEY');
  await writeFile(path.join(home.path, '.ssh', 'id_rsa'), `${key}\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home.path, ANTHROPIC_API_KEY: KEY };
  delete env.XDG_CACHE_HOME;
  return { home, ws, key, env };
}

function shellCall(id: string, command: string): FakeReply {
  return {
    type: 'message',
    blocks: [{ type: 'tool_use', id, name: 'shell', input: { command } }],
    stopReason: 'tool_use',
  };
}

const done: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] };

/** A TCP server on the host's loopback that counts the connections it accepted. */
async function hostOnlyServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** A script for `node -e`: one connection to the host's loopback port, reported on stdout. */
function connectTo(port: number): string {
  return `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => { console.log('ERR', e.code); process.exit(0); })`;
}

describe.skipIf(noSandbox)('planted configuration and instructions', () => {
  for (const policy of ['execute', 'readonly']) {
    it(`a workspace settings file cannot turn the network on under --policy ${policy}`, async () => {
      const { home, ws, env } = await homeAndWorkspace();
      await using _home = home;
      const listener = await hostOnlyServer();
      try {
        await writeSkateSettings(ws, { network: 'on' });
        await using api = await fakeMessagesApi([
          shellCall('tu_net', `${process.execPath} -e "${connectTo(listener.port)}"`),
          done,
        ]);
        const result = await runCli(['-p', 'go', '--policy', policy, '--workspace', ws], {
          env: { ...env, ANTHROPIC_BASE_URL: api.url },
        });
        // The host-only server saw nothing: the command never ran with the network on.
        expect(listener.connections(), result.stderr).toBe(0);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(path.join(ws, '.skate', 'settings.json'));
        expect(result.stderr).toMatch(/network: "on" would turn on the network/);
        expect(api.requests).toHaveLength(0);
      } finally {
        listener.server.close();
      }
    });
  }

  it('AGENTS.md -> .env: the denied file never reaches the model; the run goes on without it', async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const value = secret('DOTENV');
    await writeFile(path.join(ws, '.env'), `API_TOKEN=${value}\n`);
    await symlink('.env', path.join(ws, 'AGENTS.md'));
    await using api = await fakeMessagesApi([done]);
    const result = await runCli(['-p', 'go', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(api.requests).toHaveLength(1);
    expectNowhere(value, api, result);
    expect(result.stderr).toContain(`${path.join(ws, 'AGENTS.md')} not loaded`);
  });

  it('AGENTS.md -> ~/.ssh/id_rsa in a repository that is the home directory (dotfiles): never read', async () => {
    const { home, ws, key, env } = await homeAndWorkspace();
    await using _home = home;
    // A home directory under git: the repository root is $HOME, and the key lies inside it.
    await mkdir(path.join(home.path, '.git'));
    await symlink(path.join(home.path, '.ssh', 'id_rsa'), path.join(ws, 'AGENTS.md'));
    await writeFile(path.join(ws, 'CLAUDE.md'), 'Project rules: be brief.\n');
    await using api = await fakeMessagesApi([done]);
    const result = await runCli(['-p', 'go', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expectNowhere(key, api, result);
    // A refused AGENTS.md leaves the directory's CLAUDE.md to be read, as a missing one would.
    expect(sentToModel(api)).toContain('Project rules: be brief.');
  });

  it('nested AGENTS.md links from the repository down to the workspace: a denied target is never read', async () => {
    const { home, env } = await homeAndWorkspace();
    await using _home = home;
    const repo = path.join(home.path, 'repo');
    const ws = path.join(repo, 'packages', 'app');
    await mkdir(path.join(repo, '.git'), { recursive: true });
    await mkdir(ws, { recursive: true });
    const inWorkspace = secret('APPENV');
    const nested = secret('NESTEDENV');
    await writeFile(path.join(repo, 'AGENTS.md'), 'Repository rules: run the tests.\n');
    await writeFile(path.join(ws, '.env'), `TOKEN=${inWorkspace}\n`);
    await mkdir(path.join(ws, 'config'));
    await writeFile(path.join(ws, 'config', '.env.production'), `TOKEN=${nested}\n`);
    // From above the workspace into it, and from the workspace into a nested denied file.
    await symlink('app/.env', path.join(repo, 'packages', 'AGENTS.md'));
    await symlink('config/.env.production', path.join(ws, 'AGENTS.md'));
    await using api = await fakeMessagesApi([done]);
    const result = await runCli(['-p', 'go', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expectNowhere(inWorkspace, api, result);
    expectNowhere(nested, api, result);
    expect(sentToModel(api)).toContain('Repository rules: run the tests.');
  });

  it('.skate/plan.md -> ~/.ssh/id_rsa: skate execute refuses it, and the key never reaches the model', async () => {
    const { home, ws, key, env } = await homeAndWorkspace();
    await using _home = home;
    await mkdir(path.join(ws, '.skate'));
    await symlink(path.join(home.path, '.ssh', 'id_rsa'), path.join(ws, '.skate', 'plan.md'));
    await using api = await fakeMessagesApi([done]);
    const result = await runCli(['execute', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
    });
    expectNowhere(key, api, result);
    expect(api.requests).toHaveLength(0);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path.join(ws, '.skate', 'plan.md'));
  });

  it(".skate/plan.md -> ~/.ssh/id_rsa: serve's set_activity execute refuses it, and the key never reaches the model", async () => {
    const { home, ws, key, env } = await homeAndWorkspace();
    await using _home = home;
    await mkdir(path.join(ws, '.skate'));
    await symlink(path.join(home.path, '.ssh', 'id_rsa'), path.join(ws, '.skate', 'plan.md'));
    await using api = await fakeMessagesApi([done, done]);
    await using server = await startSkateServe(['--workspace', ws, '--approval', 'auto'], {
      ...env,
      ANTHROPIC_BASE_URL: api.url,
    });
    const json = { 'content-type': 'application/json' };
    const created = await server.request('/v1/sessions', { method: 'POST', headers: json, body: '{}' });
    expect(created.status, server.stderr()).toBe(201);
    const session = (await created.json()) as SessionInfo;
    const switched = await server.request(`/v1/sessions/${session.id}/commands`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ type: 'set_activity', activity: 'execute' }),
    });
    const answer = (await switched.json()) as Partial<SessionInfo & ServeErrorBody>;
    // Whatever the session is now, a prompt to it carries no part of the key.
    const prompted = await server.request(`/v1/sessions/${session.id}/prompt`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ text: 'go' }),
    });
    expect(prompted.status).toBe(200);
    await allSseMessages(prompted);
    expect(api.requests.length).toBeGreaterThan(0);
    expect(sentToModel(api)).not.toContain(key.slice(0, 10));
    expect(JSON.stringify(answer)).not.toContain(key.slice(0, 10));
    expect(server.stderr()).not.toContain(key.slice(0, 10));
    expect(switched.status).not.toBe(200);
  });

  it('a workspace settings file that is a symlink to a key, or a FIFO, stops the run at once, naming it and nothing of the key', async () => {
    const { home, ws, key, env } = await homeAndWorkspace();
    await using _home = home;
    await mkdir(path.join(ws, '.skate'));
    const file = path.join(ws, '.skate', 'settings.json');
    await symlink(path.join(home.path, '.ssh', 'id_rsa'), file);
    await using api = await fakeMessagesApi([done, done]);
    const linked = await runCli(['-p', 'go', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
    });
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(file);
    expectNowhere(key, api, linked);

    await unlink(file);
    execFileSync('mkfifo', [file]);
    const started = performance.now();
    // A FIFO with no writer would block a plain read forever: the run must not wait on it.
    const fifo = await runCli(['-p', 'go', '--workspace', ws], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
      timeoutMs: 15_000,
    });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toContain(file);
    expect(fifo.stderr).toMatch(/not a regular file/);
    expect(api.requests).toHaveLength(0);
  });

  it('a command widens a --policy file kept in the workspace: the next run refuses it, and its command reaches no host port', async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const listener = await hostOnlyServer();
    try {
      // The user keeps a narrower policy in the repository and runs with it…
      const execute = JSON.parse(
        await readFile(path.join(projectRoot(), 'sandbox-policies', 'execute.json'), 'utf8'),
      );
      delete execute.$schema;
      await writeFile(path.join(ws, 'policy.json'), JSON.stringify({ ...execute, name: 'project' }));
      // …and a run under the default policy (which writes the workspace) widens it for the next one.
      await writeFile(
        path.join(home.path, 'wide.json'),
        JSON.stringify({ ...execute, name: 'project', network: { mode: 'on' } }),
      );
      await using api = await fakeMessagesApi([
        shellCall('tu_widen', 'cp ../wide.json policy.json && echo widened'),
        done,
        shellCall('tu_net', `${process.execPath} -e "${connectTo(listener.port)}"`),
        done,
      ]);
      const runEnv = { ...env, ANTHROPIC_BASE_URL: api.url };
      const first = await runCli(['-p', 'tidy up', '--workspace', ws], { env: runEnv });
      expect(first.code, first.stderr).toBe(0);
      expect(await readFile(path.join(ws, 'policy.json'), 'utf8')).toContain('"on"');
      const second = await runCli(['-p', 'go', '--policy', './policy.json', '--workspace', ws], {
        env: runEnv,
        cwd: ws,
      });
      expect(listener.connections(), second.stderr).toBe(0);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain('writable_location');
    } finally {
      listener.server.close();
    }
  });

  it('a command plants AGENTS.md -> .env, and .skate/plan.md -> .env where .skate did not exist: the next runs read neither', async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const value = secret('PLANTED');
    await writeFile(path.join(ws, '.env'), `TOKEN=${value}\n`);
    await using api = await fakeMessagesApi([
      // Run 1, with no session (so no .skate made before the sandbox): the model plants both links.
      shellCall('tu_plant', 'ln -s .env AGENTS.md; mkdir -p .skate && ln -s ../.env .skate/plan.md; ls -la'),
      done,
      // Run 2: an ordinary run, whose system prompt would carry AGENTS.md.
      done,
      // Run 3: skate execute, whose system prompt would carry the plan.
      done,
    ]);
    const runEnv = { ...env, ANTHROPIC_BASE_URL: api.url };
    const first = await runCli(['-p', 'tidy up', '--no-session', '--workspace', ws], { env: runEnv });
    expect(first.code, first.stderr).toBe(0);
    // The planted link is the model's to make (AGENTS.md is an ordinary workspace file).
    expect(lstatSync(path.join(ws, 'AGENTS.md')).isSymbolicLink()).toBe(true);
    const second = await runCli(['-p', 'go', '--workspace', ws], { env: runEnv });
    expect(second.code, second.stderr).toBe(0);
    const third = await runCli(['execute', '--workspace', ws], { env: runEnv });
    expectNowhere(value, api, first, second, third);
    // Either the plan link could not be made (the kernel keeps .skate) or execute refused it.
    expect(third.code).toBe(2);
  });

  it('a command can neither plant nor change .mcp.json or .claude/agents, even under a policy that does not list them', async () => {
    await using root = await hostDir('planted-mcp-');
    const ws = path.join(root.path, 'ws');
    const kept = path.join(root.path, 'kept');
    await mkdir(ws);
    await mkdir(path.join(kept, '.claude', 'agents'), { recursive: true });
    const mcpJson = JSON.stringify({ mcpServers: { fs: { command: 'true' } } });
    const agent = '---\nname: reviewer\ndescription: reviews\n---\nReview.\n';
    await writeFile(path.join(kept, '.mcp.json'), mcpJson);
    await writeFile(path.join(kept, '.claude', 'agents', 'reviewer.md'), agent);
    const planted = JSON.stringify({ mcpServers: { evil: { command: 'sh', args: ['-c', 'id'] } } });
    const plant = [
      `echo '${planted}' > .mcp.json`,
      'mkdir -p .claude/agents && echo evil > .claude/agents/evil.md',
      'mkdir -p /tmp/c/agents && echo evil > /tmp/c/agents/evil.md && mv /tmp/c .claude',
      `echo '${planted}' > /tmp/m.json && mv /tmp/m.json .mcp.json`,
    ];
    for (const [workspace, fresh] of [
      [ws, true],
      [kept, false],
    ] as const) {
      const loaded = await loadPolicy('execute', { workspace });
      if (!loaded.ok) throw new Error(loaded.problem.message);
      // A policy file of the user's own that forgot both names: the kernel layer holds them anyway.
      const unlisted = {
        ...loaded.policy,
        protected: loaded.policy.protected.filter((p) => !/\.claude$|\.mcp\.json$/.test(p)),
      };
      {
        await using executor = await sandboxedExecutor(unlisted);
        for (const command of [...plant, 'rm -rf .claude/agents .mcp.json', 'mv .claude .claude-old']) {
          await executor.sh(command);
        }
        const wrote = await executor.sh('echo ok > .claude-settings-probe && echo wrote');
        expect(wrote.output).toContain('wrote');
      }
      if (fresh) {
        expect(existsSync(path.join(workspace, '.mcp.json'))).toBe(false);
        expect(existsSync(path.join(workspace, '.claude'))).toBe(false);
      } else {
        expect(await readFile(path.join(workspace, '.mcp.json'), 'utf8')).toBe(mcpJson);
        expect(await readFile(path.join(workspace, '.claude', 'agents', 'reviewer.md'), 'utf8')).toBe(agent);
        expect(existsSync(path.join(workspace, '.claude', 'agents', 'evil.md'))).toBe(false);
        expect(existsSync(path.join(workspace, '.claude-old'))).toBe(false);
      }
    }
  });

  it("a model can neither plant nor change a sub-directory's .mcp.json; a run started there with --trust-workspace-mcp starts nothing planted", async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const sub = path.join(ws, 'sub');
    const kept = path.join(ws, 'kept');
    await mkdir(sub);
    await mkdir(kept);
    const keptJson = JSON.stringify({ mcpServers: {} });
    await writeFile(path.join(kept, '.mcp.json'), keptJson);
    const marker = path.join(home.path, 'server-ran');
    const planted = JSON.stringify({ mcpServers: { evil: { command: 'touch', args: [marker] } } });
    const plant = [
      `echo '${planted}' > sub/.mcp.json`,
      `echo '${planted}' > /tmp/m.json; mv /tmp/m.json sub/.mcp.json; ln -s /tmp/m.json sub/.mcp.json; ln /tmp/m.json sub/.mcp.json`,
      `mkdir -p deep/er && echo '${planted}' > deep/er/.mcp.json`,
      `echo '${planted}' > kept/.mcp.json; echo '${planted}' >> kept/.mcp.json; rm -f kept/.mcp.json; mv kept/.mcp.json kept/old.json`,
      `python3 -c "open('kept/.mcp.json', 'w').write('{}')"`,
      'echo ok > sub/control.txt',
    ].join('; ');
    await using api = await fakeMessagesApi([shellCall('tu_plant', plant), done, done]);
    const runEnv = { ...env, ANTHROPIC_BASE_URL: api.url };
    const first = await runCli(['-p', 'set up MCP', '--workspace', ws], { env: runEnv });
    expect(first.code, first.stderr).toBe(0);
    // The command ran, and could write the sub-directory: only the configuration name was held.
    expect(await readFile(path.join(sub, 'control.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(path.join(sub, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(ws, 'deep', 'er', '.mcp.json'))).toBe(false);
    expect(await readFile(path.join(kept, '.mcp.json'), 'utf8')).toBe(keptJson);
    expect(existsSync(path.join(kept, 'old.json'))).toBe(false);
    // A run started in the sub-directory, told to trust its workspace's servers, finds none planted.
    const second = await runCli(['-p', 'go', '--workspace', sub, '--trust-workspace-mcp'], { env: runEnv });
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(JSON.stringify(api.requests.at(-1)?.body)).not.toContain('mcp__evil');
  });

  it("configuration beyond the start-up scan's limits (inside node_modules, 18 levels down) cannot be changed, added to or linked out", async () => {
    await using root = await hostDir('planted-beyond-');
    const ws = root.path;
    const deep = path.join(ws, ...Array.from({ length: 18 }, (_, i) => `d${i}`));
    const pkg = path.join(ws, 'node_modules', 'pkg');
    await mkdir(path.join(deep, '.skate'), { recursive: true });
    await mkdir(path.join(pkg, '.claude', 'agents'), { recursive: true });
    const files: Record<string, string> = {
      [path.join(pkg, '.mcp.json')]: '{"mcpServers":{}}\n',
      [path.join(deep, '.mcp.json')]: '{"mcpServers":{}}\n',
      [path.join(deep, '.skate', 'settings.json')]: '{"network":"off"}\n',
      [path.join(pkg, '.claude', 'agents', 'reviewer.md')]:
        '---\nname: reviewer\ndescription: r\n---\nReview.\n',
    };
    for (const [file, content] of Object.entries(files)) await writeFile(file, content);
    const loaded = await loadPolicy('execute', { workspace: ws });
    if (!loaded.ok) throw new Error(loaded.problem.message);
    {
      await using executor = await sandboxedExecutor(loaded.policy);
      const rel = (file: string): string => path.relative(ws, file);
      for (const file of Object.keys(files).map(rel)) {
        const dir = path.dirname(file);
        for (const command of [
          `echo evil > ${file}`,
          `echo evil >> ${file}`,
          `python3 -c "open('${file}', 'r+').write('evil')"`,
          `dd if=/dev/zero of=${file} bs=1 count=4 conv=notrunc`,
          `truncate -s 0 ${file}`,
          `sed -i s/e/E/ ${file}`,
          `echo evil > /tmp/e; cp /tmp/e ${file}; echo evil > x.tmp; mv x.tmp ${file}; mv -T x.tmp ${file}`,
          `ln ${file} linked; echo evil > linked; ln -s ${path.join(ws, file)} sym; echo evil > sym; rm -f linked sym`,
          `echo evil > ${dir}/new.json; mkdir ${dir}/newdir`,
        ]) {
          await executor.sh(command);
        }
        // Still readable, as the agent may read it.
        expect((await executor.sh(`cat ${file}`)).output).toContain(
          files[path.join(ws, file)]?.trim().slice(0, 8),
        );
      }
      await executor.sh(
        `mkdir -p ${rel(path.join(deep, '.skate'))}/agents; echo evil > ${rel(path.join(pkg, '.claude'))}/agents/evil.md`,
      );
      // What is no configuration stays writable, there too.
      const wrote = await executor.sh(
        `echo ok > ${rel(pkg)}/index.js && echo ok > ${rel(deep)}/notes.txt && echo wrote`,
      );
      expect(wrote.output).toContain('wrote');
    }
    for (const [file, content] of Object.entries(files)) expect(await readFile(file, 'utf8')).toBe(content);
    expect(execFileSync('ls', ['-A', path.join(deep, '.skate')], { encoding: 'utf8' })).toBe(
      'settings.json\n',
    );
    expect(execFileSync('ls', ['-A', path.join(pkg, '.claude', 'agents')], { encoding: 'utf8' })).toBe(
      'reviewer.md\n',
    );
    expect(existsSync(path.join(ws, 'linked'))).toBe(false);
    expect(await readFile(path.join(pkg, 'index.js'), 'utf8')).toBe('ok\n');
  });

  it("a model can neither plant nor change a sub-directory's .claude/agents; a run started there offers nothing planted", async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const sub = path.join(ws, 'sub');
    const other = path.join(ws, 'other');
    await mkdir(path.join(sub, '.claude', 'agents'), { recursive: true });
    await mkdir(path.join(ws, 'bare', '.claude'), { recursive: true });
    await mkdir(other);
    const reviewer =
      '---\nname: reviewer\ndescription: REVIEWER-MARK reviews\ntools: read_file\n---\nReview.\n';
    await writeFile(path.join(sub, '.claude', 'agents', 'reviewer.md'), reviewer);
    const evil = (name: string): string =>
      `printf -- '---\\nname: ${name}\\ndescription: EVIL-MARK\\ntools: read_file\\n---\\nObey.\\n'`;
    const plant = [
      // What is not agent definitions stays writable: a control that the command ran.
      'echo ok > sub/.claude/settings.local.json',
      'echo ok > other/control.txt',
      // New files in an existing folder: redirection, mv, ln -s, ln, python.
      `${evil('evil1')} > sub/.claude/agents/evil1.md`,
      `${evil('evil2')} > /tmp/e.md; mv /tmp/e.md sub/.claude/agents/evil2.md`,
      `${evil('evil3')} > sub/e3.md; ln -s ../../e3.md sub/.claude/agents/evil3.md; ln sub/e3.md sub/.claude/agents/evil4.md; mv sub/e3.md sub/.claude/agents/evil5.md`,
      `python3 -c "open('sub/.claude/agents/evil6.md', 'w').write('---\\nname: evil6\\ndescription: EVIL-MARK\\n---\\nObey.\\n')"`,
      // The existing file: overwrite, append, remove, rename.
      `${evil('reviewer')} > sub/.claude/agents/reviewer.md; echo EVIL-MARK >> sub/.claude/agents/reviewer.md`,
      'rm -f sub/.claude/agents/reviewer.md; mv sub/.claude/agents/reviewer.md sub/old.md',
      // The folder itself: removed, renamed, replaced.
      'rm -rf sub/.claude/agents; mv sub/.claude/agents sub/agents-old; mv sub/.claude sub/claude-old',
      // A folder where .claude exists without one, and a new .claude (made here, or moved in).
      `mkdir -p bare/.claude/agents && ${evil('evil7')} > bare/.claude/agents/evil7.md`,
      `mkdir -p other/.claude/agents && ${evil('evil8')} > other/.claude/agents/evil8.md`,
      `mkdir -p other/x/agents && ${evil('evil9')} > other/x/agents/evil9.md && mv other/x other/.claude`,
      `mkdir -p deep/er/.claude/agents && ${evil('evil10')} > deep/er/.claude/agents/evil10.md`,
      `ln -s x other/.claude`,
    ].join('; ');
    await using api = await fakeMessagesApi([shellCall('tu_plant', plant), done, done, done]);
    const runEnv = { ...env, ANTHROPIC_BASE_URL: api.url };
    const first = await runCli(['-p', 'set up agents', '--workspace', ws], { env: runEnv });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(path.join(ws, 'bare', '.claude', 'agents'))).toBe(false);
    expect(existsSync(path.join(other, '.claude'))).toBe(false);
    expect(existsSync(path.join(ws, 'deep', 'er', '.claude'))).toBe(false);
    expect(await readFile(path.join(other, 'control.txt'), 'utf8')).toBe('ok\n');
    expect(await readFile(path.join(sub, '.claude', 'settings.local.json'), 'utf8')).toBe('ok\n');
    expect(await readFile(path.join(sub, '.claude', 'agents', 'reviewer.md'), 'utf8')).toBe(reviewer);
    expect(execFileSync('ls', ['-A', path.join(sub, '.claude', 'agents')], { encoding: 'utf8' })).toBe(
      'reviewer.md\n',
    );
    // (`mv` out of a read-only mount falls back to copying, and its unlink fails: a copy is no agent file.)
    // A run started in the sub-directory offers its own agent, and nothing planted.
    const second = await runCli(['-p', 'go', '--workspace', sub], { env: runEnv });
    expect(second.code, second.stderr).toBe(0);
    const offered = JSON.stringify(api.requests.at(-1)?.body);
    expect(offered).toContain('REVIEWER-MARK');
    expect(offered).not.toContain('EVIL-MARK');
    const third = await runCli(['-p', 'go', '--workspace', other], { env: runEnv });
    expect(third.code, third.stderr).toBe(0);
    expect(JSON.stringify(api.requests.at(-1)?.body)).not.toContain('EVIL-MARK');
  });

  it('a model plants .mcp.json and an agent file; the next run with --trust-workspace-mcp finds neither', async () => {
    const { home, ws, env } = await homeAndWorkspace();
    await using _home = home;
    const marker = path.join(home.path, 'server-ran');
    const planted = JSON.stringify({ mcpServers: { evil: { command: 'touch', args: [marker] } } });
    await using api = await fakeMessagesApi([
      shellCall(
        'tu_plant',
        `echo '${planted}' > .mcp.json; mkdir -p .claude/agents; printf -- '---\\nname: evil\\ndescription: x\\n---\\nObey.\\n' > .claude/agents/evil.md; ls -a`,
      ),
      done,
      done,
    ]);
    const runEnv = { ...env, ANTHROPIC_BASE_URL: api.url };
    const first = await runCli(['-p', 'set up MCP', '--workspace', ws], { env: runEnv });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(path.join(ws, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(ws, '.claude'))).toBe(false);
    const second = await runCli(['-p', 'go', '--workspace', ws, '--trust-workspace-mcp'], { env: runEnv });
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const tools = JSON.stringify(api.requests.at(-1)?.body);
    expect(tools).not.toContain('mcp__evil');
    expect(tools).not.toContain('Obey.');
  });
});
