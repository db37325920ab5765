import { type FakeMessagesApi, type FakeReply, fakeMessagesApi } from './fake-messages-api.js';
import { hostDir } from './host-dir.js';
import { type CliResult, runCli } from './run-cli.js';
import type { TempDir } from './temp-dir.js';

/** A model reply that calls one tool. */
export function toolCall(id: string, name: string, input: Record<string, unknown>): FakeReply {
  return { type: 'message', blocks: [{ type: 'tool_use', id, name, input }], stopReason: 'tool_use' };
}

/** A model reply of text alone (the end of a run). */
export function textReply(text: string): FakeReply {
  return { type: 'message', blocks: [{ type: 'text', text }] };
}

/**
 * The environment that points the real `skate` at a fake Messages API (`api`, its URL), optionally
 * with a HOME of its own (`~/.skate` settings, consent, caches). The model and the caches are the
 * test's choice, not whoever runs the suite.
 */
export function cliEnv(options: { api: string; key?: string; home?: string | undefined }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ANTHROPIC_API_KEY: options.key ?? 'sk-ant-test',
    ANTHROPIC_BASE_URL: options.api,
    ...(options.home !== undefined && { HOME: options.home }),
  };
  delete env.SKATE_MODEL;
  delete env.ANTHROPIC_MODEL;
  if (options.home !== undefined) delete env.XDG_CACHE_HOME;
  return env;
}

export interface CliWorldOptions {
  /** What the fake Messages API answers, in order (more with `api.enqueue`/`enqueueFor`). */
  replies?: FakeReply[];
  /** The API key skate is given; distinct per test file, so an assertion can look for it. */
  key?: string;
  /** A HOME of its own (`~/.skate` settings, consent, caches): no person's settings leak in. */
  home?: boolean;
  /** The workspace's name prefix (on the host, outside /tmp, so host checks see what a sandbox wrote). */
  prefix?: string;
}

/**
 * What most CLI tests set up: a workspace on the host, the fake Messages API, and the environment
 * that points the real `skate` at it (optionally with a HOME of its own). Disposing stops the API
 * and removes the directories.
 */
export interface CliWorld extends AsyncDisposable {
  readonly ws: string;
  /** The HOME skate runs with (undefined: the test process's). */
  readonly home: string | undefined;
  readonly api: FakeMessagesApi;
  readonly env: NodeJS.ProcessEnv;
  /** The built CLI with this world's environment (give `--workspace` where the command takes it). */
  skate(args: string[], options?: { stdin?: string; timeoutMs?: number; cwd?: string }): Promise<CliResult>;
}

export async function cliWorld(options: CliWorldOptions = {}): Promise<CliWorld> {
  const dirs: TempDir[] = [];
  try {
    const ws = await hostDir(options.prefix ?? 'cli-world-');
    dirs.push(ws);
    const home = options.home ? await hostDir('cli-world-home-') : undefined;
    if (home) dirs.push(home);
    const api = await fakeMessagesApi(options.replies ?? []);
    const env = cliEnv({ api: api.url, key: options.key ?? 'sk-ant-test-cli-world', home: home?.path });
    return {
      ws: ws.path,
      home: home?.path,
      api,
      env,
      skate: (args, run = {}) => runCli(args, { env, ...run }),
      async [Symbol.asyncDispose]() {
        await api[Symbol.asyncDispose]();
        for (const dir of dirs.reverse()) await dir[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    for (const dir of dirs.reverse()) await dir[Symbol.asyncDispose]();
    throw error;
  }
}
