import { CallToolResultSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { checkCallToolResult, leanCallToolResultSchema } from '../../../executor/mcp/call-tool-result.js';
import { checkJsonRpcMessage, parseJsonRpcMessage } from '../../../executor/mcp/check-jsonrpc-message.js';

/**
 * The executor's hand checks of what an MCP server sends stand in for the SDK's schemas on the
 * common messages only: whatever a check accepts, the schema accepts, parsing it to an equal
 * value; what a check leaves (undefined), the schema decides.
 */
function expectWithinZod(check: (value: unknown) => unknown, schema: z.ZodType, value: unknown): boolean {
  const checked = check(value);
  if (checked === undefined) return false;
  const parsed = schema.safeParse(value);
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(checked).toStrictEqual(parsed.data);
  return true;
}

/** JSON as a line carries it (JSON.parse makes `__proto__` an own key, as a hostile server may send). */
const json = (text: string): unknown => JSON.parse(text);

const values = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, 2 ** 60, '', 'x', '2.0', [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('checkJsonRpcMessage', () => {
  const taken = [
    '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}',
    '{"result":{},"jsonrpc":"2.0","id":"a"}',
    '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1,"total":2}}',
  ];
  const left = [
    '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1}}}',
    '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true}}}',
    '{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{}}',
    '{"jsonrpc":"2.0","id":1.5,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"result":[]}',
    '{"jsonrpc":"2.0","id":1,"result":null}',
    '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
    '{"jsonrpc":"1.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"x","params":{"_meta":{}}}',
    '{"jsonrpc":"2.0","method":"x","params":[]}',
    '{"jsonrpc":"2.0","method":3}',
    '[]',
    '"x"',
  ];

  it('takes the common answers and notifications, as the schema parses them', () => {
    for (const line of taken)
      expect(expectWithinZod(checkJsonRpcMessage, JSONRPCMessageSchema, json(line))).toBe(true);
  });

  it('leaves the rest to the schema, which still refuses what it refused', () => {
    for (const line of left) {
      expect(checkJsonRpcMessage(json(line)), line).toBeUndefined();
      const raw = json(line);
      const parsed = JSONRPCMessageSchema.safeParse(raw);
      if (parsed.success) expect(parseJsonRpcMessage(raw)).toStrictEqual(parsed.data);
      else expect(() => parseJsonRpcMessage(raw)).toThrow();
    }
  });

  it('accepts nothing the schema refuses, for any message of any shape', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            jsonrpc: fc.oneof(fc.constant('2.0'), values),
            id: values,
            method: fc.oneof(fc.string(), values),
            params: values,
            result: fc.oneof(
              fc.dictionary(fc.constantFrom('content', '_meta', 'a', '__proto__'), values),
              values,
            ),
            extra: values,
          },
          { requiredKeys: ['jsonrpc'] },
        ),
        (message) => {
          expectWithinZod(checkJsonRpcMessage, JSONRPCMessageSchema, json(JSON.stringify(message)));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('checkCallToolResult', () => {
  it('takes text results, as the schema parses them', () => {
    for (const result of [
      { content: [{ type: 'text', text: 'x' }] },
      { content: [], isError: true },
      {
        content: [
          { type: 'text', text: '' },
          { type: 'text', text: 'y' },
        ],
        isError: false,
      },
    ]) {
      expect(expectWithinZod(checkCallToolResult, CallToolResultSchema, result)).toBe(true);
    }
  });

  it('leaves every other shape to the SDK schema, with its defaults and refusals', () => {
    const others: unknown[] = [
      {},
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      { content: [{ type: 'text', text: 'x', annotations: { priority: 0.5 } }] },
      { content: [{ type: 'text', text: 'x', extra: 1 }] },
      { content: [], structuredContent: { a: 1 } },
      { content: [{ type: 'text', text: 7 }] },
      { content: 'text' },
      { content: [], isError: 'yes' },
      { content: [null] },
    ];
    for (const result of others) {
      expect(checkCallToolResult(result)).toBeUndefined();
      const expected = CallToolResultSchema.safeParse(result);
      const lean = leanCallToolResultSchema.safeParse(result);
      expect(lean.success, JSON.stringify(result)).toBe(expected.success);
      if (expected.success) expect(lean.data).toStrictEqual(expected.data);
    }
  });

  it('accepts nothing the schema refuses, for any result', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constantFrom('text', 'image'), text: fc.oneof(fc.string(), values) }),
      fc.dictionary(
        fc.constantFrom('type', 'text', 'annotations', '_meta'),
        fc.oneof(fc.constant('text'), values),
      ),
      values,
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            content: fc.oneof(fc.array(block, { maxLength: 3 }), values),
            isError: values,
            structuredContent: values,
            _meta: values,
          },
          { requiredKeys: [] },
        ),
        (result) => {
          const raw = json(JSON.stringify(result));
          expectWithinZod(checkCallToolResult, CallToolResultSchema, raw);
          const lean = leanCallToolResultSchema.safeParse(raw);
          expect(lean.success).toBe(CallToolResultSchema.safeParse(raw).success);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
