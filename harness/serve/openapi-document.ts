import * as z from 'zod';
import { ServeErrorBody } from '../../shared/serve-api.js';
import type { Route } from './route-table.js';

/**
 * The OpenAPI 3.1 document of the route table, its schemas generated from the
 * zod shapes in shared/ (`z.toJSONSchema`, JSON Schema 2020-12, which 3.1
 * uses as is): nothing about the API is written twice.
 */
export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const schema = (type: z.ZodType, io: 'input' | 'output'): unknown =>
    z.toJSONSchema(type, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  const errorResponse = {
    description:
      'An error: 400 bad_request, 401 unauthorized, 400 unknown_model, 403 forbidden or host_not_allowed, 404 not_found, 409 busy, not_pending or workspace_in_use, 410 replay_gone, 413 payload_too_large, 429 too_many_sessions or too_many_runs, 503 shutting_down',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
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
    const responses: Record<string, unknown> = { default: errorResponse };
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
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: schema(ServeErrorBody, 'output') },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
