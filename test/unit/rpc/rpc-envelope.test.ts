import { describe, expect, it } from 'vitest';
import { RequestFrame, ResponseFrame } from '../../../shared/rpc-envelope.js';
import { isRequestFrame, isResponseFrame } from '../../../shared/rpc-frame-checks.js';

const requests: unknown[] = [
  { id: 1, method: 'mutation', params: { path: 'callTool', input: { json: {} } } },
  { id: 'a', jsonrpc: '2.0', method: 'query', params: { path: 'listTools', input: {} } },
  { id: 4, method: 'query', params: { path: 'listTools' } },
  { id: 2, method: 'subscription', params: { path: 'toolOutput', input: {}, lastEventId: 'x' } },
  { id: 3, method: 'subscription.stop' },
  { id: -1, method: 'query', params: { path: 'health' } },
  { id: 1.5, method: 'query', params: { path: 'health' } },
  { id: '', method: 'query', params: { path: 'health' } },
  { id: 'x'.repeat(129), method: 'query', params: { path: 'health' } },
  { id: 1, method: 'delete', params: { path: 'health' } },
  { id: 1, method: 'query', params: { path: '' } },
  { id: 1, method: 'query', params: { path: 'p'.repeat(257) } },
  { id: 1, method: 'query', params: { path: 'health', lastEventId: 5 } },
  { id: 1, method: 'query' },
  { id: 1, jsonrpc: '1.0', method: 'query', params: { path: 'health' } },
  { method: 'query', params: { path: 'health' } },
  [],
  null,
  'frame',
];

const responses: unknown[] = [
  { id: 1, result: { type: 'data', data: { json: { output: 'ok' } } } },
  { id: 'a', jsonrpc: '2.0', result: { type: 'started' } },
  { id: 2, result: { type: 'stopped' } },
  { id: 2, result: { type: 'data', data: 1, id: 'ev' } },
  { id: null, error: { json: {} } },
  { id: 3, error: 'anything' },
  { id: 1, result: { type: 'data', data: 1, id: 7 } },
  { id: 1, result: { type: 'other' } },
  { id: null, result: { type: 'started' } },
  { id: -2, error: {} },
  { id: 1, jsonrpc: '2.1', result: { type: 'started' } },
  { id: 1, result: null },
  {},
  null,
];

describe('hand-written frame checks', () => {
  it('accept only what the zod schemas accept, and every well-formed frame', () => {
    for (const frame of requests) {
      const zod = RequestFrame.safeParse(frame).success;
      if (isRequestFrame(frame)) expect(zod, JSON.stringify(frame)).toBe(true);
      else if (zod) throw new Error(`fast check refused a valid request ${JSON.stringify(frame)}`);
    }
    for (const frame of responses) {
      const zod = ResponseFrame.safeParse(frame).success;
      if (isResponseFrame(frame)) expect(zod, JSON.stringify(frame)).toBe(true);
      else if (zod && frame !== null && typeof frame === 'object' && Object.keys(frame).length > 0)
        throw new Error(`fast check refused a valid response ${JSON.stringify(frame)}`);
    }
    expect(requests.filter(isRequestFrame)).toHaveLength(4);
    expect(responses.filter(isResponseFrame)).toHaveLength(6);
  });
});
