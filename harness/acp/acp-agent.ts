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
import type {
  ForkSessionRequest,
  ForkSessionResponse,
  SessionCapabilities as UnstableSessionCapabilities,
} from '@agentclientprotocol/sdk/unstable';
import * as z from 'zod';
import { deleteSession } from '../session/delete-session.js';
import { SessionError } from '../session/session-error.js';
import { listSessions } from '../session/session-store.js';
import type { AcpAgentFactory, AcpAgentHandle } from './acp-agent-port.js';
import { mcpServersFromClient } from './acp-mcp-servers.js';
import { AcpSession } from './acp-session.js';
import { listPage } from './session-listing.js';

export interface AcpAgentOptions {
  agents: AcpAgentFactory;
  version: string;
  /** The workspace of a `session/list` without `cwd`: where the editor started `skate acp`. */
  defaultCwd?: string;
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
  /** The workspace of each session this connection has named (listed, opened), for `session/delete`. */
  const workspaces = new Map<string, string>();
  let capabilities: ClientCapabilities = {};
  /** Agents being started (new, load, resume, fork): `close` waits for them, so none outlives the connection. */
  const starting = new Set<Promise<unknown>>();
  let closing = false;

  /** An agent started for a session, or closed again when the connection closed meanwhile. */
  const started = async (start: Promise<AcpAgentHandle>): Promise<AcpAgentHandle> => {
    starting.add(start);
    try {
      const handle = await start;
      if (closing) {
        await handle.close();
        throw RequestError.internalError(undefined, 'the connection is closing');
      }
      return handle;
    } finally {
      starting.delete(start);
    }
  };

  /** Starts an ACP session on `handle` and tells the client its commands once it knows the session. */
  const begin = (handle: AcpAgentHandle, client: AgentContext, id = handle.sessionId): AcpSession => {
    const session = new AcpSession({ id, agent: handle, client, capabilities, log: options.log });
    // Two loads of one session at once: the later one is the session; the earlier one's agent stops.
    const earlier = sessions.get(session.id);
    if (earlier) void earlier.close().catch(() => undefined);
    sessions.set(session.id, session);
    workspaces.set(session.id, handle.workspace);
    return session;
  };

  const sessionFor = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  /**
   * A new session (`session/new`, `session/fork`) begun on `handle`, the client's servers it could
   * not use noted, its commands announced once the client knows its id; resolves to the response.
   */
  const opened = (handle: AcpAgentHandle, client: AgentContext, problems: readonly string[]) => {
    const session = begin(handle, client);
    noteMcpProblems(session, problems, options.log);
    afterResponse(() => session.announceCommands());
    return { sessionId: session.id, modes: session.modes, configOptions: session.configOptions };
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
    const servers = mcpServersFromClient(params.mcpServers ?? []);
    const handle = await started(
      options.agents.open({
        workspace,
        session: { kind: 'resume', id: params.sessionId },
        mcpServers: servers.entries,
      }),
    );
    const session = begin(handle, client, params.sessionId);
    noteMcpProblems(session, servers.problems, options.log);
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
          // A client's servers (stdio, http, sse), each confined in an executor of its own.
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: {
            resume: {},
            close: {},
            list: {},
            delete: {},
            ...UNSTABLE_SESSION_CAPABILITIES,
          },
        },
        agentInfo: { name: 'skate', title: 'Skate', version: options.version },
        authMethods: [],
      };
    })
    .onRequest(
      methods.agent.session.new,
      explained(async ({ params, client }) => {
        const workspace = await workspaceOf(params.cwd);
        const servers = mcpServersFromClient(params.mcpServers);
        const handle = await started(
          options.agents.open({ workspace, session: { kind: 'new' }, mcpServers: servers.entries }),
        );
        return opened(handle, client, servers.problems);
      }),
    )
    .onRequest(
      methods.agent.session.load,
      explained(async ({ params, client }) => {
        const session = await continueSession(params, client);
        await session.replay();
        session.announceCommands();
        return { modes: session.modes, configOptions: session.configOptions };
      }),
    )
    .onRequest(
      methods.agent.session.resume,
      explained(async ({ params, client }) => {
        const session = await continueSession(params, client);
        afterResponse(() => session.announceCommands());
        return { modes: session.modes, configOptions: session.configOptions };
      }),
    )
    .onRequest(
      methods.agent.session.list,
      explained(async ({ params }) => {
        const cwd = params.cwd ?? options.defaultCwd;
        if (!cwd) throw RequestError.invalidParams(undefined, 'session/list needs the workspace: give cwd');
        const page = listPage((await listSessions(await workspaceOf(cwd))).sessions, params.cursor);
        for (const info of page.sessions) workspaces.set(info.sessionId, cwd);
        return page;
      }),
    )
    .onRequest(
      methods.agent.session.delete,
      explained(async ({ params }) => {
        const id = params.sessionId;
        const open = sessions.get(id);
        if (open?.busy) {
          throw RequestError.invalidRequest(
            { sessionId: id },
            `session ${id} is running a prompt; cancel it (session/cancel) before deleting it`,
          );
        }
        const workspace = workspaces.get(id) ?? options.defaultCwd;
        if (!workspace) throw RequestError.sessionNotFound(id);
        if (open) {
          sessions.delete(id);
          await open.close();
        }
        try {
          await deleteSession(workspace, id);
        } catch (error) {
          if (error instanceof SessionError && error.code === 'missing')
            throw RequestError.sessionNotFound(id);
          if (error instanceof SessionError && error.code === 'in_use')
            throw RequestError.invalidRequest(
              { sessionId: id },
              `cannot delete a session in use: ${error.message}`,
            );
          throw error;
        }
        workspaces.delete(id);
        return {};
      }),
    )
    .onRequest(
      'session/fork',
      ForkParams,
      explained(async ({ params, client }): Promise<ForkSessionResponse> => {
        const workspace = await workspaceOf(params.cwd);
        const open = sessions.get(params.sessionId);
        const servers = mcpServersFromClient((params.mcpServers ?? []) as McpServer[]);
        // A fork of an open session keeps its agent's servers; one of a stored session gets the client's.
        const handle = await started(
          open && open.workspace === workspace
            ? open.fork()
            : options.agents.open({
                workspace,
                session: { kind: 'fork', id: params.sessionId },
                mcpServers: servers.entries,
              }),
        );
        return opened(handle, client, servers.problems);
      }),
    )
    .onRequest(
      methods.agent.session.setConfigOption,
      explained(async ({ params }) => ({
        configOptions: await sessionFor(params.sessionId).setConfigOption(params.configId, params.value),
      })),
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
      closing = true;
      await Promise.allSettled([...starting]);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((session) => session.close()));
    },
  };
}

/**
 * `session/fork` is in ACP's unstable schema only: it is served as an
 * extension method of the stable agent, its params read here, and advertised
 * as an unstable client looks for it (a stable one ignores the flag).
 */
const UNSTABLE_SESSION_CAPABILITIES: Pick<UnstableSessionCapabilities, 'fork'> = { fork: {} };

const ForkParams = {
  parse: (
    params: unknown,
  ): Pick<ForkSessionRequest, 'sessionId' | 'cwd'> & {
    mcpServers?: { name: string }[] | null;
  } => {
    const parsed = z
      .object({
        sessionId: z.string().min(1),
        cwd: z.string(),
        mcpServers: z.array(z.looseObject({ name: z.string() })).nullish(),
      })
      .safeParse(params);
    if (!parsed.success) throw RequestError.invalidParams(undefined, z.prettifyError(parsed.error));
    return parsed.data;
  },
};

/**
 * Runs `then` once the response being returned has been written: the client
 * learns a session's id from that response, so updates about it come after.
 */
function afterResponse(then: () => void): void {
  setImmediate(then);
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

/** A client's MCP servers Skate could not use: the user and the client are told, never silently. */
function noteMcpProblems(
  session: AcpSession,
  problems: readonly string[],
  log: (line: string) => void,
): void {
  for (const problem of problems) {
    log(problem);
    session.noteForNextPrompt(`${problem}.`);
  }
}
