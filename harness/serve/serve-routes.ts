import type * as z from 'zod';
import {
  type AnswerCommand,
  CommandRequest,
  CommandResponse,
  CreateSessionRequest,
  ForkRequest,
  PromptJsonResponse,
  PromptRequest,
  SessionInfo,
  SessionList,
  StreamMessage,
  Transcript,
} from '../../shared/serve-api.js';
import { acceptedFormat, readJson, sendJson } from './http-io.js';
import type { Route, RouteContext, RouteResponse } from './route-table.js';
import { ServeError } from './serve-error.js';
import type { ServeState } from './serve-state.js';
import { streamRun } from './sse-stream.js';

export interface ServeRoutesOptions {
  state: ServeState;
  maxBodyBytes: number;
  /** The OpenAPI document, built from this very table. */
  openApi(): unknown;
}

const json = (description: string, schema: z.ZodType): RouteResponse => ({
  description,
  content: { 'application/json': schema },
});

const STREAM_DESCRIPTION =
  'The run as server-sent events: `event:` is the message type, `data:` its JSON (StreamMessage), `id:` increases through the session; `run_start` first, `result` last.';
const STREAM: RouteResponse = {
  description: STREAM_DESCRIPTION,
  content: { 'text/event-stream': StreamMessage },
};

function isAnswer(command: CommandRequest): command is AnswerCommand {
  return (
    command.type === 'interrupt' ||
    command.type === 'cancel_agent' ||
    command.type === 'approval_response' ||
    command.type === 'ask_user_response' ||
    command.type === 'loop_decision'
  );
}

/** The endpoints of `skate serve`; every one but none checks the token before it runs (the server does). */
export function serveRoutes(options: ServeRoutesOptions): Route[] {
  const { state, maxBodyBytes } = options;
  const body = <T extends z.ZodType>(context: RouteContext, schema: T): Promise<z.infer<T>> =>
    readJson(context.request, schema, maxBodyBytes);

  return [
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API, as an OpenAPI 3.1 document',
      responses: { 200: { description: 'The document' } },
      async handle({ response }) {
        sendJson(response, 200, options.openApi());
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions',
      operationId: 'createSession',
      summary:
        "Start a session: an agent with its own executor, under a policy never wider than the server's",
      body: CreateSessionRequest,
      responses: { 201: json('The session', SessionInfo) },
      async handle(context) {
        const session = await state.create(await body(context, CreateSessionRequest));
        sendJson(context.response, 201, session.info());
      },
    },
    {
      method: 'GET',
      path: '/v1/sessions',
      operationId: 'listSessions',
      summary: "This server's sessions",
      responses: { 200: json('The sessions', SessionList) },
      async handle({ response }) {
        sendJson(response, 200, { sessions: state.list() });
      },
    },
    {
      method: 'GET',
      path: '/v1/sessions/{id}',
      operationId: 'getSession',
      summary: 'One session',
      responses: { 200: json('The session', SessionInfo) },
      async handle({ response, params }) {
        sendJson(response, 200, state.get(params.id!).info());
      },
    },
    {
      method: 'DELETE',
      path: '/v1/sessions/{id}',
      operationId: 'deleteSession',
      summary: 'Interrupt its run, stop its agent and executor; its log stays in the workspace',
      responses: { 204: { description: 'Deleted' } },
      async handle({ response, params }) {
        await state.delete(params.id!);
        response.writeHead(204).end();
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions/{id}/prompt',
      operationId: 'promptSession',
      summary:
        'Run a prompt: the events as text/event-stream (default), or one JSON answer with `Accept: application/json`',
      body: PromptRequest,
      responses: {
        200: {
          description: `${STREAM_DESCRIPTION} With \`Accept: application/json\` only: the events and the result in one body, when the run ends.`,
          content: { 'text/event-stream': StreamMessage, 'application/json': PromptJsonResponse },
        },
      },
      async handle(context) {
        const format = acceptedFormat(context.request.headers.accept);
        const session = state.get(context.params.id!);
        const run = session.prompt(await body(context, PromptRequest));
        if (format === 'sse') {
          await streamRun(context.response, run, run.firstId - 1, { 'x-skate-run-id': run.runId });
          return;
        }
        const messages: StreamMessage[] = [];
        for (let cursor = run.firstId - 1; ; ) {
          const read = run.read(cursor);
          if (read.gone) throw new ServeError('internal', `the run outgrew its buffer (${run.runId})`);
          messages.push(...read.entries.map((entry) => entry.message));
          cursor = read.entries.at(-1)?.id ?? cursor;
          if (read.ended) break;
          if (read.entries.length === 0) await run.changed();
        }
        const result = messages.at(-1);
        if (result?.type !== 'result') throw new ServeError('internal', 'the run ended without a result');
        const events = messages.flatMap((message) =>
          message.type === 'run_start' || message.type === 'result' ? [] : [message],
        );
        sendJson(context.response, 200, { runId: run.runId, events, result });
      },
    },
    {
      method: 'GET',
      path: '/v1/sessions/{id}/events',
      operationId: 'getSessionEvents',
      summary:
        'Follow the current (or last) run from after `Last-Event-ID` (or `?after=`): what was missed, then the rest live',
      headers: [{ name: 'Last-Event-ID', description: 'The id of the last message received' }],
      responses: { 200: STREAM },
      async handle({ request, response, params, url }) {
        const session = state.get(params.id!);
        const raw = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? undefined;
        const lastId = raw === undefined ? undefined : Number(raw);
        if (lastId !== undefined && (!Number.isInteger(lastId) || lastId < 0)) {
          throw new ServeError(
            'bad_request',
            `Last-Event-ID takes an event id (a whole number), not "${raw}"`,
          );
        }
        const run = session.runFor(lastId);
        await streamRun(response, run, lastId ?? run.firstId - 1, { 'x-skate-run-id': run.runId });
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions/{id}/commands',
      operationId: 'sendSessionCommand',
      summary:
        "Answer the running engine (approval_response, ask_user_response, loop_decision), interrupt it, or cancel one of its background sub-agents (cancel_agent) (202); or switch the idle session's model, network, or activity (plan, execute) within the server's policy (200)",
      body: CommandRequest,
      responses: {
        202: json('An answer or interrupt, taken by the engine', CommandResponse),
        200: json('A switch, done: the session after it', SessionInfo),
      },
      async handle(context) {
        const session = state.get(context.params.id!);
        const command = await body(context, CommandRequest);
        if (isAnswer(command)) {
          session.command(command);
          sendJson(context.response, 202, { accepted: true });
          return;
        }
        await session.change(command);
        sendJson(context.response, 200, session.info());
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions/{id}/fork',
      operationId: 'forkSession',
      summary: 'A new session holding the conversation up to an event (default: the last one)',
      body: ForkRequest,
      responses: { 201: json('The new session', SessionInfo) },
      async handle(context) {
        const request = await body(context, ForkRequest);
        const forked = await state.fork(context.params.id!, request.atEventId);
        sendJson(context.response, 201, forked.info());
      },
    },
    {
      method: 'GET',
      path: '/v1/sessions/{id}/transcript',
      operationId: 'getSessionTranscript',
      summary: "The session's log: header, events and token totals",
      responses: { 200: json('The transcript', Transcript) },
      async handle({ response, params }) {
        sendJson(response, 200, await state.transcript(params.id!));
      },
    },
  ];
}
