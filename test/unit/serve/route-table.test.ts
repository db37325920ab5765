import { describe, expect, it } from 'vitest';
import { compileRoutes, matchRoute, type Route } from '../../../harness/serve/route-table.js';
import { ServeError } from '../../../harness/serve/serve-error.js';

const route = (method: Route['method'], path: string): Route => ({
  method,
  path,
  operationId: `${method} ${path}`,
  summary: path,
  responses: {},
  handle: async () => {},
});

const table = compileRoutes([
  route('GET', '/v1/sessions'),
  route('POST', '/v1/sessions'),
  route('GET', '/v1/sessions/{id}'),
  route('DELETE', '/v1/sessions/{id}'),
  route('POST', '/v1/sessions/{id}/prompt'),
  route('GET', '/openapi.json'),
]);

function refusal(method: string, path: string): ServeError {
  try {
    matchRoute(table, method, path);
  } catch (error) {
    if (error instanceof ServeError) return error;
    throw error;
  }
  throw new Error(`${method} ${path} matched`);
}

describe('the route table', () => {
  it('matches method and path, and decodes parameters', () => {
    expect(matchRoute(table, 'POST', '/v1/sessions').route.method).toBe('POST');
    const { route: found, params } = matchRoute(table, 'POST', '/v1/sessions/abc%2Dd/prompt');
    expect(found.path).toBe('/v1/sessions/{id}/prompt');
    expect(params).toEqual({ id: 'abc-d' });
    expect(matchRoute(table, 'DELETE', '/v1/sessions/x').route.method).toBe('DELETE');
  });

  it('a parameter is one segment, and the dot in a literal path is literal', () => {
    expect(refusal('GET', '/v1/sessions/a/b').code).toBe('not_found');
    expect(refusal('GET', '/openapiXjson').code).toBe('not_found');
    expect(refusal('GET', '/v1/sessions/').code).toBe('not_found');
  });

  it('says which methods a known path takes', () => {
    const error = refusal('PUT', '/v1/sessions/x');
    expect(error.code).toBe('method_not_allowed');
    expect(error.status).toBe(405);
    expect(error.message).toContain('GET, DELETE');
  });

  it('refuses a parameter that is not valid percent-encoding', () => {
    expect(refusal('GET', '/v1/sessions/%E0%A4%A').code).toBe('bad_request');
  });
});
