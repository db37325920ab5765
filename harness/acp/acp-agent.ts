import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type McpServer,
  methods,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import type { AcpAgentFactory } from './acp-agent-port.js';
import { AcpSession } from './acp-session.js';

export interface AcpAgentOptions {
  agents: AcpAgentFactory;
  version: string;
  /** Diagnostics for stderr (stdout is the protocol). */
  log(line: string): void;
}

/** The ACP agent and the sessions it holds; `close` stops them all (their executors too). */
export interface SkateAcpAgent {
  app: AgentApp;
  close(): Promise<void>;
}

/**
 * Skate as an Agent Client Protocol agent (ACP v1): one app per connection.
 * Each ACP session is one Skate agent in the editor's working directory, on
 * its own executor; the ACP session id is the Skate session id, so
 * `session/load` continues it. See https://agentclientprotocol.com/protocol/v1.
 */
export function createAcpAgent(options: AcpAgentOptions): SkateAcpAgent {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};

  const sessionFor = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /** `session/load` and `session/resume`: an earlier Skate session of the workspace, continued. */
  const continueSession = async (
    params: { sessionId: string; cwd: string; mcpServers?: McpServer[] },
    client: AgentContext,
  ): Promise<AcpSession> => {
    const workspace = await workspaceOf(params.cwd);
    const previous = sessions.get(params.sessionId);
    sessions.delete(params.sessionId);
    await previous?.close();
    const handle = await options.agents.open({
      workspace,
      session: { kind: 'resume', id: params.sessionId },
    });
    const session = new AcpSession({
      id: params.sessionId,
      agent: handle,
      client,
      capabilities,
      log: options.log,
    });
    sessions.set(session.id, session);
    noteMcpServers(session, params.mcpServers ?? [], options.log);
    return session;
  };

  const app = agent({ name: 'skate' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          // MCP servers are not started yet: session/new accepts them and says so.
          mcpCapabilities: { http: false, sse: false },
          sessionCapabilities: { resume: {}, close: {} },
        },
        agentInfo: { name: 'skate', title: 'Skate', version: options.version },
        authMethods: [],
      };
    })
    .onRequest(
      methods.agent.session.new,
      explained(async ({ params, client }) => {
        const workspace = await workspaceOf(params.cwd);
        const handle = await options.agents.open({ workspace, session: { kind: 'new' } });
        const session = new AcpSession({
          id: handle.sessionId,
          agent: handle,
          client,
          capabilities,
          log: options.log,
        });
        sessions.set(session.id, session);
        noteMcpServers(session, params.mcpServers, options.log);
        return { sessionId: session.id, modes: session.modes, _meta: mcpMeta(params.mcpServers) };
      }),
    )
    .onRequest(
      methods.agent.session.load,
      explained(async ({ params, client }) => {
        const session = await continueSession(params, client);
        await session.replay();
        return { modes: session.modes, _meta: mcpMeta(params.mcpServers) };
      }),
    )
    .onRequest(
      methods.agent.session.resume,
      explained(async ({ params, client }) => {
        const session = await continueSession(params, client);
        return { modes: session.modes, _meta: mcpMeta(params.mcpServers ?? []) };
      }),
    )
    .onRequest(
      methods.agent.session.close,
      explained(async ({ params }) => {
        const session = sessionFor(params.sessionId);
        sessions.delete(params.sessionId);
        await session.close();
        return {};
      }),
    )
    .onRequest(
      methods.agent.session.prompt,
      explained(async ({ params, signal }) => ({
        stopReason: await sessionFor(params.sessionId).prompt(params.prompt, signal),
      })),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(
      methods.agent.session.setMode,
      explained(async ({ params }) => {
        await sessionFor(params.sessionId).setMode(params.modeId);
        return {};
      }),
    );

  return {
    app,
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((session) => session.close()));
    },
  };
}

/** Skate's refusals of what was asked (their `code` says so) and the user's own mistakes. */
const REQUEST_CODES = new Set(['workspace', 'policy', 'session', 'plan', 'settings', 'busy', 'closed']);

/**
 * A handler whose failures reach the editor with Skate's own message: the SDK
 * would send any error that is not a RequestError as a bare "Internal error".
 */
function explained<C, R>(handler: (context: C) => Promise<R>): (context: C) => Promise<R> {
  return async (context) => {
    try {
      return await handler(context);
    } catch (error) {
      if (error instanceof RequestError || !(error instanceof Error)) throw error;
      const code = (error as { code?: unknown }).code;
      throw typeof code === 'string' && REQUEST_CODES.has(code)
        ? RequestError.invalidParams({ code }, error.message)
        : RequestError.internalError(undefined, error.message);
    }
  };
}

async function workspaceOf(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd))
    throw RequestError.invalidParams(undefined, `cwd must be an absolute path: ${cwd}`);
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw RequestError.invalidParams(undefined, `cwd is not a directory: ${cwd}`);
  return cwd;
}

/** MCP servers from the editor are not started yet; the user and the client are told, never silently. */
function noteMcpServers(
  session: AcpSession,
  servers: readonly McpServer[],
  log: (line: string) => void,
): void {
  if (servers.length === 0) return;
  const names = servers.map((server) => server.name).join(', ');
  const message = `Skate does not support MCP servers yet; these were not started: ${names}.`;
  log(message);
  session.noteForNextPrompt(message);
}

function mcpMeta(servers: readonly McpServer[]): Record<string, unknown> | undefined {
  if (servers.length === 0) return undefined;
  return { skate: { unsupportedMcpServers: servers.map((server) => server.name) } };
}
