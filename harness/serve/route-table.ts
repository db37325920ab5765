import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod';
import { ServeError } from './serve-error.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteContext {
  request: IncomingMessage;
  response: ServerResponse;
  /** The path's `{name}` segments, decoded. */
  params: Record<string, string>;
  url: URL;
}

/** What a route answers with one status, for the OpenAPI document: its body schema by media type. */
export interface RouteResponse {
  description: string;
  content?: Partial<Record<'application/json' | 'text/event-stream', z.ZodType>>;
}

/** One endpoint: the table drives both dispatch and the OpenAPI document. */
export interface Route {
  method: HttpMethod;
  /** `/v1/sessions/{id}`: `{name}` matches one path segment. */
  path: string;
  /** The operation's name in the OpenAPI document: what a generated client calls the method. */
  operationId: string;
  summary: string;
  body?: z.ZodType;
  responses: Record<number, RouteResponse>;
  /** Headers the route reads, for the document. */
  headers?: { name: string; description: string }[];
  handle(context: RouteContext): Promise<void>;
}

export interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{(\w+)\}/g, (_all, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });
}

/**
 * The route for `method` and `pathname`, with its parameters; a path no route
 * has is `not_found`, a path with routes for other methods `method_not_allowed`.
 */
export function matchRoute(
  routes: readonly CompiledRoute[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } {
  const allowed: string[] = [];
  for (const { route, pattern, names } of routes) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    for (const [index, name] of names.entries()) {
      try {
        params[name] = decodeURIComponent(match[index + 1]!);
      } catch {
        throw new ServeError(
          'bad_request',
          `the path segment ${match[index + 1]} is not valid percent-encoding`,
        );
      }
    }
    return { route, params };
  }
  if (allowed.length > 0) {
    throw new ServeError('method_not_allowed', `${pathname} takes ${allowed.join(', ')}, not ${method}`);
  }
  throw new ServeError('not_found', `no endpoint ${method} ${pathname} (GET /openapi.json lists them)`);
}
