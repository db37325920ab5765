import { parseArgs } from 'node:util';
import { DEFAULT_MAX_FRAME_BYTES } from '../../executor-client/executor-client.js';
import {
  DEFAULT_RELAY_LIMITS,
  type RelayLimits,
  serveExecutors,
} from '../../executor-relay/executor-relay-server.js';
import { resolvePolicy, resolveWorkspace } from '../../runtime/start-executor.js';
import { launcherFor, type SandboxMode } from '../../sandbox/choose-launcher.js';
import { inertText } from '../../terminal/inert-text.js';
import { COMMON, type CommandMain, parsed, positiveInt, sandboxMode } from '../cli-flags.js';
import {
  CONNECTION_OPTIONS,
  connectionLimits,
  parseAllowedHost,
  parseListen,
  readServerToken,
} from '../server-options.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  ...COMMON,
  ...CONNECTION_OPTIONS,
  listen: { type: 'string' },
  'token-file': { type: 'string' },
  'max-executors': { type: 'string', default: String(DEFAULT_RELAY_LIMITS.maxExecutors) },
} as const;

/** `skate executor serve --listen HOST:PORT [--token-file FILE] [limits]`. */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  if (sub !== 'serve')
    throw new UsageError('the executor command is `skate executor serve --listen HOST:PORT`');
  const { values } = parsed(() => parseArgs({ args: rest, options: OPTIONS }), Object.keys(OPTIONS));
  if (values.help) return help();
  if (!values.listen) throw new UsageError('skate executor serve needs --listen HOST:PORT');
  return executorServeCommand({
    listen: values.listen,
    policy: values.policy,
    workspace: values.workspace,
    tokenFile: values['token-file'],
    sandbox: sandboxMode(values.sandbox),
    limits: {
      ...connectionLimits(values),
      maxExecutors: positiveInt('--max-executors', values['max-executors']),
    },
    allowedHosts: (values['allow-host'] ?? []).map(parseAllowedHost),
  });
};

export interface ExecutorServeOptions {
  listen: string;
  policy: string;
  workspace: string;
  tokenFile?: string | undefined;
  sandbox: SandboxMode;
  limits?: RelayLimits;
  allowedHosts?: string[];
}

/** `skate executor serve --listen HOST:PORT`: serves sandboxed executors to remote harnesses. */
export async function executorServeCommand(options: ExecutorServeOptions): Promise<number> {
  const { host, port } = parseListen(options.listen);
  const workspace = await resolveWorkspace(options.workspace);
  const policy = await resolvePolicy(options.policy, workspace);
  const { token, generated } = await readServerToken(options.tokenFile, 'SKATE_EXECUTOR_TOKEN');
  const server = await serveExecutors({
    host,
    port,
    token,
    policy,
    launcher: await launcherFor(policy, options.sandbox),
    maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
    ...(options.limits && { limits: options.limits }),
    ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
    // Peers' frames and the sandboxed executor's words: shown inert.
    onLog: (line) => process.stderr.write(`${inertText(line)}\n`),
  });
  process.stderr.write(
    `skate executor serving ${server.url} (policy ${policy.name}, workspace ${workspace})\n`,
  );
  if (generated) {
    process.stderr.write(`token (set SKATE_EXECUTOR_TOKEN to this in the harness): ${token}\n`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
