import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { checkExecutorBoot } from '../../../shared/check-executor-boot.js';
import { checkToolResult } from '../../../shared/check-tool-result.js';
import { ExecutorBoot } from '../../../shared/executor-boot.js';
import { checkToolCallRequest, checkToolOutputRequest } from '../../../shared/executor-inputs.js';
import { ToolCallRequest, ToolOutputRequest, ToolResult } from '../../../shared/tool.js';
import { testPolicy } from '../../support/policies.js';

/**
 * The hand-written checks an executor serves with stand in for zod schemas: each must accept
 * exactly what its schema accepts (on these inputs, JSON as frames carry it) and return what
 * the schema's parse returns.
 */
function expectSameAsZod(check: (value: unknown) => unknown, schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  const checked = check(value);
  expect(checked === undefined, JSON.stringify(value)).toBe(!parsed.success);
  if (parsed.success) expect(checked).toStrictEqual(parsed.data);
}

const validBoot = {
  type: 'boot',
  protocol: 1,
  policy: testPolicy('/work/ws', { environment: { allow: ['PATH'], set: { A: 'b' } } }),
  enforcement: 'kernel',
  resourceLimits: 'cgroup-v2',
  commandWrapper: ['/opt/skate-confine', '--'],
  diagnosticTools: false,
  maxFrameBytes: 16 * 1024 * 1024,
};

/** Every path into the valid boot frame, so a change can land anywhere in it. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
  return [
    prefix,
    ...keys.flatMap((key) => pathsOf((value as Record<string, unknown>)[key], [...prefix, key])),
  ];
}

/** Values of every JSON kind, with the edges the schemas draw (empty, zero, non-integers, huge). */
const jsonValue = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1,
    1.5,
    86_400,
    86_400.5,
    2 ** 53,
    2 ** 60,
    '',
    'x',
    'boot',
    'none',
    'off',
    'on',
    'kernel',
    'cgroup-v1',
    [],
    {},
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'B_1', 'mode'), fc.oneof(fc.string(), fc.integer()), { maxKeys: 2 }),
);

/** A copy of `root` with the value at `path` replaced, removed (undefined), or given an extra key. */
function changed(root: unknown, path: string[], change: 'set' | 'delete' | 'extra', value: unknown): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  if (path.length === 0) return change === 'set' ? value : copy;
  let parent: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (change === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (change === 'extra') {
    const target = parent[last];
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
      (target as Record<string, unknown>).extra = value;
    }
  } else parent[last] = value;
  return copy;
}

describe('checkExecutorBoot', () => {
  it('accepts a valid boot frame as zod parses it, defaults filled in', () => {
    expectSameAsZod(checkExecutorBoot, ExecutorBoot, validBoot);
    const { resourceLimits: _r, commandWrapper: _c, diagnosticTools: _d, ...minimal } = validBoot;
    expectSameAsZod(checkExecutorBoot, ExecutorBoot, minimal);
    expect(checkExecutorBoot(minimal)).toMatchObject({
      resourceLimits: 'none',
      commandWrapper: [],
      diagnosticTools: false,
    });
  });

  it('accepts and refuses what zod does, for any one change anywhere in a boot frame', () => {
    const paths = pathsOf(validBoot);
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.constantFrom('set' as const, 'delete' as const, 'extra' as const),
        jsonValue,
        (path, change, value) => {
          expectSameAsZod(checkExecutorBoot, ExecutorBoot, changed(validBoot, path, change, value));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('leaves a `__proto__` key in the environment to zod', () => {
    const raw = JSON.parse(
      JSON.stringify(validBoot).replace('"set":{"A":"b"}', '"set":{"__proto__":"x"}'),
    ) as unknown;
    expect(checkExecutorBoot(raw)).toBeUndefined();
  });
});

describe('the router input checks', () => {
  const requests: unknown[] = [
    { callId: 'call-1', name: 'read_file', input: { path: 'a' } },
    { callId: 'c', name: '', input: null },
    { callId: 'c', name: 'x', input: undefined },
    { callId: 'c', name: 'x', input: 1, extra: true },
    { callId: 'c', name: 'x' },
    { callId: '', name: 'x', input: {} },
    { callId: 'c'.repeat(128), name: 'n'.repeat(256), input: [] },
    { callId: 'c'.repeat(129), name: 'x', input: {} },
    { callId: 'c', name: 'n'.repeat(257), input: {} },
    { callId: 1, name: 'x', input: {} },
    { name: 'x', input: {} },
    [],
    null,
    'call',
  ];

  it('callTool: the same as ToolCallRequest', () => {
    for (const request of requests) expectSameAsZod(checkToolCallRequest, ToolCallRequest, request);
    fc.assert(
      fc.property(
        fc.record(
          { callId: fc.oneof(fc.string({ maxLength: 130 }), jsonValue), name: jsonValue, input: jsonValue },
          { requiredKeys: [] },
        ),
        (request) => expectSameAsZod(checkToolCallRequest, ToolCallRequest, request),
      ),
    );
  });

  it('toolOutput: the same as ToolOutputRequest', () => {
    for (const request of [...requests, { callId: 'x', more: 1 }]) {
      expectSameAsZod(checkToolOutputRequest, ToolOutputRequest, request);
    }
  });
});

describe('the harness check of a tool result', () => {
  it('takes every result without a display as ToolResult parses it, and leaves displays to zod', () => {
    const results: unknown[] = [
      { output: 'x', isError: false },
      { output: '', isError: true, code: 'failed' },
      { output: 'x', isError: true, code: 'unauthorized', extra: 1 },
      { output: 'x', isError: true, code: 'no_such_code' },
      { output: 1, isError: false },
      { output: 'x' },
      { output: 'x', isError: 'false' },
      { output: 'x', isError: false, code: null },
      [],
      null,
    ];
    const withDisplay = { output: 'x', isError: false, display: { type: 'eval', durationMs: 1, logs: 0 } };
    expect(checkToolResult(withDisplay)).toBeUndefined();
    for (const result of results) expectSameAsZod(checkToolResult, ToolResult, result);
    fc.assert(
      fc.property(
        fc.record(
          {
            output: fc.oneof(fc.string(), jsonValue),
            isError: fc.oneof(fc.boolean(), jsonValue),
            code: fc.oneof(fc.constantFrom('failed', 'cancelled', 'internal', 'nope'), jsonValue),
            extra: jsonValue,
          },
          { requiredKeys: [] },
        ),
        (result) => expectSameAsZod(checkToolResult, ToolResult, result),
      ),
      { numRuns: 2000 },
    );
  });
});
