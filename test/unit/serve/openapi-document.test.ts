import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../harness/serve/openapi-document.js';
import { serveRoutes } from '../../../harness/serve/serve-routes.js';
import type { ServeState } from '../../../harness/serve/serve-state.js';

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

describe('the OpenAPI document', () => {
  // The document only reads the table; no handler runs.
  const routes = serveRoutes({ state: {} as ServeState, maxBodyBytes: 1, openApi: () => ({}) });
  const document = openApiDocument(routes, '9.9.9') as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };

  it('describes every route of the table, with its path parameters', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('9.9.9');
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      expect(operation!.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? []).toEqual(names);
      expect(operation!.responses.default).toBeDefined();
    }
  });

  it("passes what redocly's recommended rules asked for: servers, a unique operationId, 4xx responses by status", () => {
    const full = document as unknown as {
      servers?: { url: string }[];
      paths: Record<string, Record<string, Operation & { operationId?: string }>>;
      components: { responses?: Record<string, unknown> };
    };
    expect(full.servers?.length).toBeGreaterThan(0);
    const operations = Object.values(full.paths).flatMap((methods) => Object.values(methods));
    expect(operations).toHaveLength(routes.length);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      const clientErrors = Object.keys(operation.responses).filter((status) => /^4\d\d$/.test(status));
      expect(clientErrors, operation.operationId).toContain('401');
      for (const status of clientErrors) {
        const ref = (operation.responses[status] as { $ref?: string }).$ref ?? '';
        expect(full.components.responses?.[ref.split('/').at(-1) ?? '']).toBeDefined();
      }
    }
    expect(Object.keys(full.paths['/v1/sessions/{id}/prompt']!.post!.responses)).toEqual(
      expect.arrayContaining(['400', '404', '409', '413', '429']),
    );
  });

  it('generates request and response schemas from the zod shapes', () => {
    const create = document.paths['/v1/sessions']!.post!;
    const body = create.requestBody!.content['application/json']!.schema;
    expect(Object.keys(body.properties ?? {})).toEqual(
      expect.arrayContaining(['workspace', 'policy', 'network', 'approval', 'model', 'resume']),
    );
    const prompt = document.paths['/v1/sessions/{id}/prompt']!.post!;
    const stream = prompt.responses['200']!.content!['text/event-stream']!.schema;
    const variants = (stream.oneOf ?? stream.anyOf) as { properties: { type: { const: string } } }[];
    const types = variants.map((variant) => variant.properties.type.const);
    expect(types).toEqual(expect.arrayContaining(['run_start', 'text_delta', 'approval_request', 'result']));
    expect(prompt.responses['200']!.content!['application/json']).toBeDefined();
    const commands = document.paths['/v1/sessions/{id}/commands']!.post!;
    const answers = commands.requestBody!.content['application/json']!.schema as unknown as {
      oneOf?: { properties: { type: { const: string } } }[];
      anyOf?: { properties: { type: { const: string } } }[];
    };
    const commandTypes = (answers.oneOf ?? answers.anyOf)!.map((v) => v.properties.type.const);
    expect(commandTypes.sort()).toEqual([
      'approval_response',
      'ask_user_response',
      'cancel_agent',
      'interrupt',
      'loop_decision',
      'set_activity',
      'set_model',
      'set_network',
    ]);
    // An answer is taken (202); a switch answers with the session after it (200).
    expect(commands.responses['202']!.content!['application/json']).toBeDefined();
    const after = commands.responses['200']!.content!['application/json']!.schema;
    expect(Object.keys(after.properties ?? {})).toEqual(
      expect.arrayContaining(['mode', 'planFile', 'agentSessionId', 'network', 'model']),
    );
    expect(types).toContain('request_timeout');
    expect(document.components.schemas.Error).toBeDefined();
  });
});
