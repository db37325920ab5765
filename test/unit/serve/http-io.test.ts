import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { acceptedFormat, readJson } from '../../../harness/serve/http-io.js';
import { ServeError } from '../../../harness/serve/serve-error.js';
import { PromptRequest } from '../../../shared/serve-api.js';

function request(body: string | Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  const stream = Readable.from(
    typeof body === 'string' ? [Buffer.from(body)] : body,
  ) as unknown as IncomingMessage;
  stream.headers = headers;
  return stream;
}

async function refusal(promise: Promise<unknown>): Promise<ServeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServeError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('reading a JSON body', () => {
  it('parses and checks it', async () => {
    const body = await readJson(
      request('{"text":"hi"}', { 'content-type': 'application/json' }),
      PromptRequest,
      100,
    );
    expect(body).toEqual({ text: 'hi' });
  });

  it('refuses bad JSON, a wrong shape and a wrong media type, saying what is wrong', async () => {
    const bad = await refusal(readJson(request('{"text":'), PromptRequest, 100));
    expect(bad).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/not valid JSON/) });
    const shape = await refusal(readJson(request('{"text":""}'), PromptRequest, 100));
    expect(shape).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/text/) });
    const extra = await refusal(readJson(request('{"text":"a","model":"b"}'), PromptRequest, 100));
    expect(extra.message).toMatch(/model/);
    const form = await refusal(
      readJson(
        request('text=hi', { 'content-type': 'application/x-www-form-urlencoded' }),
        PromptRequest,
        100,
      ),
    );
    expect(form).toMatchObject({ code: 'unsupported_media_type', status: 415 });
  });

  it('refuses an oversized body by its declared length or by its count', async () => {
    const declared = await refusal(readJson(request('{}', { 'content-length': '101' }), PromptRequest, 100));
    expect(declared).toMatchObject({ code: 'payload_too_large', status: 413 });
    const chunks = Array.from({ length: 5 }, () => Buffer.from('x'.repeat(30)));
    const counted = await refusal(readJson(request(chunks), PromptRequest, 100));
    expect(counted.code).toBe('payload_too_large');
  });
});

describe('the format of a run', () => {
  it('streams unless the client asks for JSON only', () => {
    expect(acceptedFormat(undefined)).toBe('sse');
    expect(acceptedFormat('*/*')).toBe('sse');
    expect(acceptedFormat('text/event-stream')).toBe('sse');
    expect(acceptedFormat('application/json, text/event-stream;q=0.5')).toBe('sse');
    expect(acceptedFormat('application/json')).toBe('json');
    expect(() => acceptedFormat('text/html')).toThrow(ServeError);
  });
});
