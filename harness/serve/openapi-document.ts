import * as z from 'zod';
import { ServeErrorBody } from '../../shared/serve-api.js';
import type { Route } from './route-table.js';

/** The client errors of the API, each a reusable response: its status's codes (`serve-error.ts`). */
const CLIENT_ERRORS = {
  BadRequest: '400 bad_request (the body or a parameter is wrong) or unknown_model',
  Unauthorized: '401 unauthorized: no or a wrong bearer token',
  Forbidden: "403 forbidden (wider than the server's policy) or host_not_allowed",
  NotFound: '404 not_found: no such session',
  Conflict: '409 busy (a run is in progress), not_pending or workspace_in_use',
  Gone: '410 replay_gone: the events after Last-Event-ID are no longer kept',
  PayloadTooLarge: '413 payload_too_large: the body is over --max-body-bytes',
  UnsupportedMediaType: '415 unsupported_media_type: the body must be application/json',
  TooManyRequests: '429 too_many_sessions or too_many_runs',
} as const;

/**
 * The OpenAPI 3.1 document of the route table, its schemas generated from the
 * zod shapes in shared/ (`z.toJSONSchema`, JSON Schema 2020-12, which 3.1
 * uses as is): nothing about the API is written twice.
 */
export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const schema = (type: z.ZodType, io: 'input' | 'output'): unknown =>
    z.toJSONSchema(type, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  const errorResponse = {
    description: 'Another error: 500 start_failed or internal, 503 shutting_down (the body says which)',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  const error = (name: keyof typeof CLIENT_ERRORS): { $ref: string } => ({
    $ref: `#/components/responses/${name}`,
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...(route.headers ?? []).map((header) => ({
        name: header.name,
        in: 'header',
        required: false,
        description: header.description,
        schema: { type: 'string' },
      })),
    ];
    // The client errors each operation can answer with, by status, so generated clients can name them.
    const responses: Record<string, unknown> = {
      '401': error('Unauthorized'),
      '403': error('Forbidden'),
      ...(route.path.includes('{id}') && { '404': error('NotFound') }),
      ...(route.body && {
        '400': error('BadRequest'),
        '413': error('PayloadTooLarge'),
        '415': error('UnsupportedMediaType'),
      }),
      ...(route.method === 'POST' && route.path !== '/v1/sessions' && { '409': error('Conflict') }),
      ...(route.operationId === 'createSession' || route.operationId === 'promptSession'
        ? { '429': error('TooManyRequests') }
        : {}),
      ...(route.operationId === 'getSessionEvents' && { '410': error('Gone') }),
      default: errorResponse,
    };
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.content && {
          content: Object.fromEntries(
            Object.entries(response.content).map(([type, body]) => [
              type,
              { schema: schema(body, 'output') },
            ]),
          ),
        }),
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schema(route.body, 'input') } },
        },
      }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'skate serve',
      version,
      description:
        "Skate agents over HTTP: sessions on the agent runtime, runs streamed as server-sent events. Every request needs `Authorization: Bearer <token>`; browsers may call it cross-origin only from the server's `--cors` origins.",
    },
    // Relative: the document is served by the server it describes, at whatever address it listens on.
    servers: [{ url: '/', description: 'the skate serve that served this document' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: schema(ServeErrorBody, 'output') },
      responses: Object.fromEntries(
        Object.entries(CLIENT_ERRORS).map(([name, description]) => [
          name,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
    security: [{ bearer: [] }],
    paths,
  };
}
