import { createHash } from 'node:crypto';
import type { RecordedBody } from './fake-messages-api.js';

/** What the model of the cache found for one request, in bytes of its serialized prefix. */
export interface CachedRequest {
  inputBytes: number;
  cachedBytes: number;
}

interface Segment {
  bytes: number;
  hash: string;
  breakpoint: boolean;
}

/**
 * A model of the Messages API's prompt cache, for figures the fake server cannot give: each
 * request is its tools, system blocks and message blocks in that order; a block with
 * `cache_control` is a breakpoint, and a request reads from the cache the longest prefix ending at
 * one of its breakpoints that an earlier request (of the same model) also ended a breakpoint at.
 * Sizes are bytes of JSON, a stand-in for tokens. A request's prefixes count as written when it
 * arrives (the API makes them readable once the first response starts, slightly later).
 * `ignore` drops the breakpoints a caller wants to compare without.
 */
export function modelPromptCache(
  bodies: readonly RecordedBody[],
  ignore: (where: { part: 'system'; index: number; count: number }) => boolean = () => false,
): CachedRequest[] {
  const written = new Set<string>();
  return bodies.map((body) => {
    const segments: Segment[] = [];
    let hash = body.model;
    const push = (value: unknown, breakpoint: boolean): void => {
      const text = JSON.stringify(value);
      hash = createHash('sha256').update(hash).update('\0').update(text).digest('hex');
      segments.push({ bytes: Buffer.byteLength(text), hash, breakpoint });
    };
    const strip = (block: Record<string, unknown>): [Record<string, unknown>, boolean] => {
      const { cache_control, ...rest } = block;
      return [rest, cache_control !== undefined];
    };
    for (const tool of (body.tools ?? []) as Record<string, unknown>[]) push(...strip(tool));
    const system =
      typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
    system.forEach((block, index) => {
      const [rest, marked] = strip(block as Record<string, unknown>);
      push(rest, marked && !ignore({ part: 'system', index, count: system.length }));
    });
    for (const message of body.messages) {
      const blocks =
        typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of blocks as Record<string, unknown>[]) {
        const [rest, marked] = strip(block);
        push({ role: message.role, ...rest }, marked);
      }
    }
    let total = 0;
    let cached = 0;
    const ends: string[] = [];
    for (const segment of segments) {
      total += segment.bytes;
      if (!segment.breakpoint) continue;
      ends.push(segment.hash);
      if (written.has(segment.hash)) cached = total;
    }
    for (const end of ends) written.add(end);
    return { inputBytes: total, cachedBytes: cached };
  });
}
