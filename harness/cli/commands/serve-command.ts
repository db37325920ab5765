import { parseArgs } from 'node:util';
import { applyRunOverrides } from '../../../shared/run-overrides.js';
import { waitingForBackground } from '../../agents/background-agents.js';
import { createAgentSession } from '../../runtime/agent-session.js';
import { resolvePolicy, resolveWorkspace } from '../../runtime/start-executor.js';
import { skateVersion } from '../../skate-version.js';
import { modelFrom, runSettingsFrom } from '../agent-settings-from-flags.js';
import {
  AGENT_OPTIONS,
  agentFlags,
  type CommandMain,
  parsed,
  positiveInt,
  refuseFlags,
} from '../cli-flags.js';
import { note } from '../note.js';
import {
  CONNECTION_OPTIONS,
  connectionLimits,
  parseAllowedHost,
  parseCorsOrigin,
  parseListen,
  readServerToken,
  serveConnectionDefaults,
} from '../server-options.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  ...AGENT_OPTIONS,
  ...CONNECTION_OPTIONS,
  // A request's head and body; the response (a stream) is not timed.
  'request-timeout': { type: 'string', default: '60' },
  // A client is there to answer: approvals are asked by default, as in `skate acp`.
  approval: { type: 'string', default: 'ask' },
  listen: { type: 'string' },
  'token-file': { type: 'string' },
  'max-sessions': { type: 'string', default: '32' },
  'max-runs': { type: 'string', default: '8' },
  'max-body-bytes': { type: 'string', default: String(8 * 1024 * 1024) },
  'idle-timeout': { type: 'string', default: '300' },
  'replay-buffer': { type: 'string', default: '10000' },
  // Long enough to read a diff and decide; short enough that an abandoned run gives back its slot.
  'approval-timeout': { type: 'string', default: '300' },
  cors: { type: 'string', multiple: true },
} as const;

/** Flags of a headless run that mean nothing here: clients send the prompts and choose the sessions. */
const NOT_HERE: readonly (keyof typeof AGENT_OPTIONS)[] = [
  'print',
  'output-format',
  'answers',
  'continue',
  'resume',
  'fork-at',
  'no-session',
  'executor',
  'add-dir',
];

/** The token's environment variable (or `--token-file`); generated and printed once when neither is given. */
export const SERVE_TOKEN_ENV = 'SKATE_SERVE_TOKEN';

/**
 * `skate serve --listen HOST:PORT`: the HTTP API with SSE, each session an
 * agent on the agent runtime in a workspace inside `--workspace`, under a
 * policy never wider than `--policy`.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(
    () => parseArgs({ args, options: OPTIONS, allowPositionals: true }),
    Object.keys(OPTIONS),
  );
  if (values.help) return help();
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  refuseFlags(args, NOT_HERE, 'skate serve takes prompts and sessions from its clients');
  if (!values.listen) throw new UsageError('skate serve needs --listen HOST:PORT (e.g. 127.0.0.1:7800)');
  const { host, port } = parseListen(values.listen);
  const limits = {
    maxSessions: positiveInt('--max-sessions', values['max-sessions']),
    maxRuns: positiveInt('--max-runs', values['max-runs']),
    maxBodyBytes: positiveInt('--max-body-bytes', values['max-body-bytes']),
    idleMs: positiveInt('--idle-timeout', values['idle-timeout']) * 1000,
    replayLimit: positiveInt('--replay-buffer', values['replay-buffer']),
    requestTimeoutMs: positiveInt('--approval-timeout', values['approval-timeout']) * 1000,
  };
  const connections = {
    ...connectionLimits(values, serveConnectionDefaults(limits.maxSessions, limits.maxRuns)),
    requestTimeoutMs: positiveInt('--request-timeout', values['request-timeout']) * 1000,
  };
  const allowedHosts = (values['allow-host'] ?? []).map(parseAllowedHost);
  const corsOrigins = (values.cors ?? []).map(parseCorsOrigin);
  // The token is settled before anything starts: a bad one leaves nothing running.
  const { token, generated } = await readServerToken(values['token-file'], SERVE_TOKEN_ENV);
  const flags = await agentFlags(values);
  const root = await resolveWorkspace(flags.workspace);
  const rootPolicy = await resolvePolicy(flags.policy, root);
  const settings = runSettingsFrom(
    flags,
    modelFrom(flags, 'set ANTHROPIC_API_KEY in the environment of skate serve'),
  );
  const executor = settings.executor;
  if (executor.kind !== 'local') throw new UsageError('skate serve starts its own executors');
  // The server's --network is part of each session's ceiling; the session's policy carries it from there.
  const { network: _network, addDirs: _addDirs, ...localExecutor } = executor;

  const [{ ServeState }, { startServeHttp }] = await Promise.all([
    import('../../serve/serve-state.js'),
    import('../../serve/serve-http.js'),
  ]);
  const state = new ServeState({
    server: { root, policy: flags.policy, network: flags.network, approval: flags.approval },
    rootPolicy: flags.network ? applyRunOverrides(rootPolicy, { network: flags.network }) : rootPolicy,
    defaultModel: settings.model.name,
    maxSessions: limits.maxSessions,
    maxRuns: limits.maxRuns,
    idleMs: limits.idleMs,
    replayLimit: limits.replayLimit,
    requestTimeoutMs: limits.requestTimeoutMs,
    onLog: flags.verbose ? note : undefined,
    start: (start) =>
      createAgentSession({
        ...settings,
        workspace: start.workspace,
        session: start.session,
        executor: { ...localExecutor, policy: start.policy },
        approval: start.approval,
        model: { ...settings.model, name: start.model },
        ...(start.activity && { activity: start.activity }),
        // The client answers approvals, questions and the turn cap through the command endpoint.
        answerer: 'user',
        // A run's result carries its background children's: their events are in its stream.
        subagents: waitingForBackground(settings.subagents),
        // A host off the allowlist is a question for the client, never past the server's policy.
        askNetwork: { ceiling: start.ceiling.network },
        unansweredReason: 'The API client answered the question with nothing.',
        onNote: note,
      }),
  });
  const server = await startServeHttp({
    host,
    port,
    token,
    state,
    maxBodyBytes: limits.maxBodyBytes,
    corsOrigins,
    limits: connections,
    allowedHosts,
    version: skateVersion(),
    onLog: note,
  });
  process.stderr.write(
    `skate serve listening on ${server.url} (policy ${rootPolicy.name}, approval ${flags.approval}, workspace ${root})\n`,
  );
  if (generated)
    process.stderr.write(
      `token (send as "Authorization: Bearer <token>"; or set ${SERVE_TOKEN_ENV}): ${token}\n`,
    );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  note(`${signal}: interrupting runs and closing sessions (again to quit at once)`);
  const force = (): never => process.exit(signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  await server.close();
  // Every session, executor and connection of ours is closed; an idle keep-alive socket to the model
  // API would still hold the process for seconds. Exit once main has set the status.
  setImmediate(() => process.exit()).unref();
  return 0;
};
