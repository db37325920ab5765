/**
 * The environment class (issue #20, item 7): every credential Skate knows of, enumerated from its
 * one list (`KNOWN_SECRETS`), plus the secrets it learns at run time (a `--token-file`'s token, the
 * variables the user's settings set), stays out of everything the harness starts for a sandbox,
 * under every shipped policy and best effort: by name and by value, in the environment, in argv
 * (`/proc/1/cmdline` is the sandbox's init's, skate-confine's) and in any tool output. Checked from inside, and on the host.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { distPath } from '../../harness/project-paths.js';
import { unconfinedLauncher } from '../../harness/sandbox/executor-launch.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { KNOWN_SECRETS } from '../../shared/known-secrets.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { parseShell } from '../support/sandboxed-executor.js';
import { allSseMessages, SERVE_TOKEN, startSkateServe } from '../support/skate-serve.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import type { TempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const run = randomBytes(6).toString('hex');
const secretFor = (name: string): string => `${name.toLowerCase()}-${run}-secret`;

/** Every entry of the list, under each name a test can give it (a prefix under its examples and one more name). */
const KNOWN: Record<string, string> = {};
for (const secret of KNOWN_SECRETS) {
  const prefix = secret.name.endsWith('*') ? secret.name.slice(0, -1) : undefined;
  const names = prefix ? [...(secret.examples ?? []), `${prefix}SKATE_TEST_OTHER`] : [secret.name];
  for (const name of names) KNOWN[name] = secretFor(name);
}
/** Known secrets' values under names no list knows: withheld for what they carry. */
const ALIASES: Record<string, string> = {
  COPY_OF_A_KEY: KNOWN.OPENAI_API_KEY!,
  PROXY_WITH_PASSWORD: `http://user:${KNOWN.AWS_SECRET_ACCESS_KEY}@proxy.invalid:3128`,
};
/** Passes wherever a policy lets everything through (`full`): proof that the list, not the allowlist, withheld the rest. */
const VISIBLE = { SKATE_TEST_VISIBLE: `visible-${run}` };
const HARNESS_ENV: Record<string, string> = { ...KNOWN, ...ALIASES, ...VISIBLE };
const NEVER_INSIDE = Object.values(KNOWN);
const SECRET_NAMES = [...Object.keys(KNOWN), ...Object.keys(ALIASES)];

/**
 * What a command can see of the environment: its own, its `/proc/self/environ`, the sandbox init's argv
 * (`/proc/1/cmdline`), and every `/proc/*` environ and cmdline it can read, searched for the
 * secrets from a file (so grep's own argv holds none of them).
 */
const PROBE = [
  'echo "== env"; /usr/bin/env',
  'echo "== self"; /usr/bin/tr "\\0" "\\n" < /proc/self/environ',
  'echo "== pid 1"; /usr/bin/tr "\\0" " " < /proc/1/cmdline; echo',
  'echo "== readable environ bytes: $(/usr/bin/cat /proc/[0-9]*/environ 2>/dev/null | /usr/bin/wc -c)"',
  'echo "== matches"',
  'for m in $(/usr/bin/grep -l -a -F -f secrets.txt /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null); do',
  '  echo "$m: $(/usr/bin/tr "\\0" " " < "${m%/*}/cmdline" | /usr/bin/head -c 300)"',
  'done',
  'echo "== end"',
].join('\n');

/** A workspace with the probe and the patterns it searches for; `.skate/plan.md` so `plan` has its one writable file. */
async function probeWorkspace(prefix: string): Promise<TempDir> {
  const dir = await hostDir(prefix);
  await writeFile(path.join(dir.path, 'probe.sh'), PROBE);
  await writeFile(path.join(dir.path, 'secrets.txt'), `${NEVER_INSIDE.join('\n')}\n`);
  await mkdir(path.join(dir.path, '.skate'));
  await writeFile(path.join(dir.path, '.skate', 'plan.md'), '');
  return dir;
}

/** What the probe printed, checked: it ran to the end, and no secret, by name or value, is in it. */
function expectNoSecret(output: string, where: string): void {
  expect(output, where).toContain('== env');
  expect(output, where).toContain('== end');
  expect(output, where).toMatch(/^HOME=/m);
  expect(Number(/readable environ bytes: (\d+)/.exec(output)?.[1]), where).toBeGreaterThan(0);
  for (const value of NEVER_INSIDE) expect(output, `${where}: a value`).not.toContain(value);
  for (const name of SECRET_NAMES)
    expect(output, `${where}: ${name}`).not.toMatch(new RegExp(`^${name}=`, 'm'));
  const matches = output.slice(output.indexOf('== matches'), output.indexOf('== end'));
  expect(matches, `${where}: /proc files holding a secret`).not.toMatch(/\/proc\//);
}

function harnessEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...HARNESS_ENV, ...extra };
}

describe.skipIf(noSandbox)('every credential Skate knows of stays out of every sandbox', () => {
  it('covers each kind of credential the list is for', () => {
    const names = KNOWN_SECRETS.map((secret) => secret.name);
    for (const name of ['SKATE_SERVE_TOKEN', 'SKATE_EXECUTOR_TOKEN', 'ANTHROPIC_*', 'CLAUDE_*', 'OPENAI_*']) {
      expect(names).toContain(name);
    }
    expect(names).toEqual(
      expect.arrayContaining(['AWS_SECRET_ACCESS_KEY', 'GOOGLE_APPLICATION_CREDENTIALS']),
    );
  });

  const policies = [
    ['execute', []],
    ['execute-git', []],
    ['readonly', []],
    ['plan', []],
    ['full', []],
    ['execute', ['--sandbox', 'best-effort']],
  ] as const;
  it.each(policies)('a command under %s %j sees none of them', async (policy, flags) => {
    await using ws = await probeWorkspace(`env-${policy}-`);
    // Best effort for real: no bubblewrap on PATH, so the executor and its commands run unconfined.
    const bestEffort = flags.length > 0;
    const emptyBin = path.join(ws.path, 'empty-bin');
    if (bestEffort) await mkdir(emptyBin);
    const result = await runCli(
      [
        'tool',
        'shell',
        '--policy',
        policy,
        '--workspace',
        ws.path,
        ...flags,
        '--input',
        JSON.stringify({ command: '/bin/bash probe.sh' }),
      ],
      { env: harnessEnv(bestEffort ? { PATH: emptyBin } : {}), timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const output = (JSON.parse(result.stdout) as { output: string }).output;
    expectNoSecret(output, `${policy} ${flags.join(' ')}`);
    if (policy === 'full') expect(output).toContain(`SKATE_TEST_VISIBLE=${VISIBLE.SKATE_TEST_VISIBLE}`);
    // In a sandbox, pid 1 is its init (bubblewrap runs skate-confine --as-pid-1), whose argv was read.
    if (!bestEffort && policy !== 'full') expect(output).toMatch(/== pid 1\n\S*skate-confine /);
    // Best effort ran with no sandbox at all: pid 1 is the host's.
    if (bestEffort) expect(output).not.toMatch(/== pid 1\n\S*skate-confine /);
    expect(result.stderr).not.toContain(run);
  });

  it.each(['execute', 'full'])(
    'a command run by `skate sandbox` under %s sees none of them',
    async (policy) => {
      await using ws = await probeWorkspace(`env-sandbox-${policy}-`);
      const result = await runCli(
        ['sandbox', '--policy', policy, '--workspace', ws.path, '--', '/bin/bash', 'probe.sh'],
        { env: harnessEnv(), cwd: ws.path, timeoutMs: 30_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      expectNoSecret(result.stdout, `skate sandbox --policy ${policy}`);
    },
  );

  it("`skate executor serve`'s executors get neither its token (from --token-file) nor the others", async () => {
    await using ws = await probeWorkspace('env-executor-serve-');
    const token = `executor-file-token-${run}`;
    const tokenFile = path.join(ws.path, 'token');
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    await writeFile(path.join(ws.path, 'secrets.txt'), `${[...NEVER_INSIDE, token].join('\n')}\n`);
    const server = spawn(
      process.execPath,
      [
        distPath('cli', 'skate.js'),
        'executor',
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--policy',
        'full',
        '--workspace',
        ws.path,
        '--token-file',
        tokenFile,
      ],
      { env: harnessEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    server.stderr.on('data', (chunk) => {
      log += String(chunk);
    });
    try {
      expect(await eventually(() => /serving ws:\/\/127\.0\.0\.1:\d+/.test(log), 15_000), log).toBe(true);
      const url = /serving (ws:\/\/127\.0\.0\.1:\d+)/.exec(log)![1]!;
      const client = await ExecutorClient.connect(url, { token });
      try {
        const shell = parseShell(await client.callTool('shell', { command: '/bin/bash probe.sh' }));
        expect(shell.exitCode, shell.output).toBe(0);
        expectNoSecret(shell.output, 'executor serve --policy full');
        expect(shell.output).not.toContain(token);
        expect(shell.output).toContain(`SKATE_TEST_VISIBLE=${VISIBLE.SKATE_TEST_VISIBLE}`);
      } finally {
        await client.shutdown();
      }
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('close', resolve));
    }
  });

  it("`skate serve`'s sessions get neither its token nor the keys, nor do the model or the client see them", async () => {
    await using ws = await probeWorkspace('env-serve-');
    const tokenFile = path.join(ws.path, 'token');
    // The file's token is the one clients use; the environment's is another, withheld by name.
    await writeFile(tokenFile, `${SERVE_TOKEN}\n`, { mode: 0o600 });
    const envToken = `serve-env-token-${run}`;
    await writeFile(
      path.join(ws.path, 'secrets.txt'),
      `${[...NEVER_INSIDE, SERVE_TOKEN, envToken].join('\n')}\n`,
    );
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_probe', name: 'shell', input: { command: '/bin/bash probe.sh' } },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Probed.' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--policy', 'full', '--approval', 'auto', '--token-file', tokenFile],
      harnessEnv({ ANTHROPIC_BASE_URL: api.url, SKATE_SERVE_TOKEN: envToken }),
    );
    const created = await server.request('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(created.status, server.stderr()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const messages = await allSseMessages(
      await server.request(`/v1/sessions/${id}/prompt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'probe' }),
      }),
    );
    const result = messages.find((m) => m.data.type === 'tool_call_result')?.data as
      | { output: string }
      | undefined;
    expect(result, JSON.stringify(messages.map((m) => m.data.type))).toBeDefined();
    const apiKeyAndUrl = [KNOWN.ANTHROPIC_API_KEY!, api.url];
    for (const seen of [result!.output, JSON.stringify(api.requests.at(-1)?.body)]) {
      // The session's ANTHROPIC_BASE_URL is the fake's URL: withheld like the key it carries.
      expectNoSecret(seen.replaceAll('\\n', '\n'), 'serve --policy full');
      for (const value of [SERVE_TOKEN, envToken, ...apiKeyAndUrl]) expect(seen).not.toContain(value);
    }
    expect(result!.output).toContain(`SKATE_TEST_VISIBLE=${VISIBLE.SKATE_TEST_VISIBLE}`);
  });

  it('keeps out the variables the user’s settings set, by name and value', async () => {
    await using ws = await probeWorkspace('env-settings-');
    await using home = await hostDir('env-settings-home-');
    const gatewayKey = `gateway-key-${run}`;
    await writeSkateSettings(home.path, { env: { MY_GATEWAY_KEY: gatewayKey } });
    await writeFile(path.join(ws.path, 'secrets.txt'), `${[...NEVER_INSIDE, gatewayKey].join('\n')}\n`);
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_probe', name: 'shell', input: { command: '/bin/bash probe.sh' } },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Probed.' }] },
    ]);
    const result = await runCli(
      ['-p', 'probe', '--policy', 'full', '--workspace', ws.path, '--output-format', 'stream-json'],
      {
        env: harnessEnv({ HOME: home.path, ANTHROPIC_BASE_URL: api.url, COPY_OF_GATEWAY_KEY: gatewayKey }),
        timeoutMs: 30_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const toolResult = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; output?: string })
      .find((event) => event.type === 'tool_call_result');
    expect(toolResult?.output).toBeDefined();
    expectNoSecret(toolResult!.output!, 'settings env under full');
    expect(toolResult!.output).not.toContain(gatewayKey);
    expect(toolResult!.output).not.toMatch(/^MY_GATEWAY_KEY=/m);
    expect(JSON.stringify(api.requests.at(-1)?.body)).not.toContain(gatewayKey);
  });
});

/** The in-process harness's environment for the tests below, as a user's shell would have set it. */
function withHarnessEnv(): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(HARNESS_ENV)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Every process below the client's executor, as the host sees it: none holds a secret in its environ or argv. */
async function expectNoSecretOnHost(client: ExecutorClient): Promise<string[]> {
  const pids = [client.pid!, ...(await processDescendants(client.pid!))];
  const lines: string[] = [];
  for (const pid of pids) {
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    const argv = await commandLine(pid);
    lines.push(argv);
    for (const secret of NEVER_INSIDE) {
      expect(environ, `environ of ${pid} (${argv})`).not.toContain(secret);
      expect(argv, `argv of ${pid}`).not.toContain(secret);
    }
  }
  return lines;
}

describe.skipIf(noSandbox)('what the harness starts for a sandbox, checked on the host', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = withHarnessEnv();
  });
  afterAll(() => restore());

  /** A policy that asks for every secret by name and tries to set them: it still gets none. */
  function greedyPolicy(workspace: string): ResolvedPolicy {
    return testPolicy(workspace, {
      environment: {
        allow: ['PATH', 'HOME', ...SECRET_NAMES, ...KNOWN_SECRETS.map((secret) => secret.name)],
        set: { SKATE_SET: 'fixed', ANTHROPIC_BASE_URL: 'http://evil.invalid', OPENAI_API_KEY: 'sk-planted' },
      },
    });
  }

  it.each([
    ['the kernel sandbox', () => kernelLauncher()],
    ['no sandbox (full, best effort)', () => unconfinedLauncher('best-effort')],
  ])('under %s: the executor, the js_eval worker and ripgrep start without them', async (_how, launcher) => {
    await using ws = await probeWorkspace('env-host-');
    // A ripgrep that records the environment it was started with, then does the real work.
    const bin = path.join(ws.path, 'bin');
    await mkdir(bin);
    await writeFile(
      path.join(bin, 'rg'),
      `#!/bin/sh\n/usr/bin/tr '\\0' '\\n' < /proc/self/environ > "${ws.path}/rg-environ.txt"\nexec /usr/bin/rg "$@"\n`,
    );
    await chmod(path.join(bin, 'rg'), 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    let client: ExecutorClient | undefined;
    try {
      client = await ExecutorClient.spawn({ policy: greedyPolicy(ws.path), launcher: launcher() });
      const env = parseShell(await client.callTool('shell', { command: '/usr/bin/env' }));
      expect(env.output).toContain('SKATE_SET=fixed');
      for (const name of SECRET_NAMES) expect(env.output).not.toMatch(new RegExp(`^${name}=`, 'm'));
      for (const secret of NEVER_INSIDE) expect(env.output).not.toContain(secret);
      expect(env.output).not.toContain('sk-planted');
      expect((await client.callTool('js_eval', { code: '6 * 7' })).output).toBe('42');
      await client.callTool('grep', { pattern: 'nothing-here-at-all' });
      const started = await expectNoSecretOnHost(client);
      expect(started.some((argv) => argv.includes('js-eval-worker.js'))).toBe(true);
      const rgEnviron = await readFile(path.join(ws.path, 'rg-environ.txt'), 'utf8');
      expect(rgEnviron).toMatch(/^PATH=/m);
      for (const secret of NEVER_INSIDE) expect(rgEnviron).not.toContain(secret);
    } finally {
      process.env.PATH = savedPath;
      await client?.shutdown();
    }
  });
});
