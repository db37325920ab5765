import { describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { testPolicy } from '../support/policies.js';
import { frameData, frameError, rawExecutor } from '../support/raw-executor.js';
import { tempDir } from '../support/temp-dir.js';

describe('bad input to a real executor', () => {
  it('answers unknown tools, schema failures and oversized inputs with results naming the problem', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({ policy: testPolicy(dir.path), diagnosticTools: true });
    try {
      const unknown = await executor.callTool('rm_rf', {});
      expect(unknown).toMatchObject({ isError: true, code: 'unknown_tool' });
      expect(unknown.output).toMatch(/this executor offers: read_file, .*write_file, .*shell/);
      const invalid = await executor.callTool('read_file', { path: 42, offset: -1 });
      expect(invalid).toMatchObject({ isError: true, code: 'invalid_input' });
      expect(invalid.output).toMatch(/path[\s\S]*offset/);
      const huge = await executor.callTool('write_file', {
        path: 'big.txt',
        content: 'x'.repeat(9 * 1024 * 1024),
      });
      expect(huge).toMatchObject({ isError: true, code: 'input_too_large' });
      expect(huge.output).toContain('the limit is 8388608');
      expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
    } finally {
      await executor.shutdown();
    }
  });

  it('never echoes a huge input back whole, and names an error code once', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({ policy: testPolicy(dir.path), diagnosticTools: true });
    try {
      // The case is 5 MB; each tool gets 100 KB, far over the bounds too.
      const path = 'a'.repeat(5 * 1024 * 1024);
      for (const name of ['read_file', 'list_dir', 'write_file', 'edit_file']) {
        const result = await executor.callTool(name, {
          path: path.slice(0, 100_000),
          content: 'x',
          old_string: 'a',
          new_string: 'b',
        });
        expect(result, name).toMatchObject({ isError: true });
        expect(result.output.length, name).toBeLessThan(4096);
        expect(result.output, name).toMatch(/…\[\d+ characters elided\]…/);
        expect(result.output, name).not.toMatch(/(E[A-Z]+): \1/);
      }
      const read = await executor.callTool('read_file', { path });
      expect(read.output).toMatch(/^read_file failed: ENAMETOOLONG: name too long, \w+ '/);
      const unknown = await executor.callTool('x'.repeat(200), {});
      expect(unknown.output.length).toBeLessThan(4096);
      const grep = await executor.callTool('grep', { pattern: `absent${'p'.repeat(100_000)}` });
      expect(grep.output.length).toBeLessThan(4096);
      expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
    } finally {
      await executor.shutdown();
    }
  });

  it('refuses a request larger than the channel before sending it', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({
      policy: testPolicy(dir.path),
      diagnosticTools: true,
      maxFrameBytes: 64 * 1024,
    });
    try {
      await expect(
        executor.callTool('write_file', { path: 'a', content: 'x'.repeat(100_000) }),
      ).rejects.toMatchObject({
        code: 'refused',
        message: expect.stringContaining('exceeds the channel limit of 65536 bytes'),
      });
      expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
    } finally {
      await executor.shutdown();
    }
  });

  it('answers malformed frames with typed errors and keeps serving', async () => {
    await using dir = await tempDir();
    await using executor = await rawExecutor(testPolicy(dir.path), 4096);

    executor.send('this is not json');
    const notJson = await executor.next();
    expect(notJson.id).toBeNull();
    expect(frameError(notJson)).toMatchObject({ data: { skateCode: 'malformed_frame' } });
    expect(frameError(notJson).message).toContain('frame is not JSON');

    executor.send(JSON.stringify({ id: 7, method: 'launch', params: {} }));
    const badShape = await executor.next();
    expect(badShape.id).toBe(7);
    expect(frameError(badShape).data.skateCode).toBe('malformed_frame');
    expect(frameError(badShape).message).toContain('malformed request frame');

    executor.request(8, 'mutation', 'nonexistent.procedure', {});
    const unknownProcedure = await executor.next();
    expect(frameError(unknownProcedure).data.skateCode).toBe('unknown_procedure');

    executor.request(9, 'mutation', 'callTool', { callId: '', name: 'noop' });
    const invalidRequest = await executor.next();
    expect(frameError(invalidRequest).data.skateCode).toBe('invalid_request');
    expect(frameError(invalidRequest).message).toContain('callId');

    // Input that is not superjson-encoded decodes to nothing useful and fails the procedure's schema.
    executor.send(
      JSON.stringify({ id: 10, method: 'mutation', params: { path: 'callTool', input: { name: 'noop' } } }),
    );
    const unencoded = await executor.next();
    expect(unencoded.id).toBe(10);
    expect(frameError(unencoded).data.skateCode).toBe('invalid_request');

    executor.send(
      `{"id":11,"method":"mutation","params":{"path":"callTool","input":"${'x'.repeat(10_000)}"}}`,
    );
    const oversized = await executor.next();
    expect(oversized.id).toBe(11);
    expect(frameError(oversized).data.skateCode).toBe('frame_too_large');
    expect(frameError(oversized).message).toContain("exceeds the executor's limit of 4096 bytes");

    // Still serving, and still answering with the right ids.
    executor.request(12, 'mutation', 'callTool', { callId: 'c1', name: 'noop', input: {} });
    const ok = await executor.next();
    expect(ok.id).toBe(12);
    expect(frameData(ok)).toEqual({ output: 'ok', isError: false });
    expect(executor.child.exitCode).toBeNull();
  });

  it('rejects a duplicate in-flight request id', async () => {
    await using dir = await tempDir();
    await using executor = await rawExecutor(testPolicy(dir.path));
    executor.request(1, 'mutation', 'callTool', {
      callId: 'a',
      name: 'emit_lines',
      input: { count: 3, intervalMs: 100 },
    });
    executor.request(1, 'mutation', 'callTool', { callId: 'b', name: 'noop', input: {} });
    const duplicate = await executor.next();
    expect(frameError(duplicate).data.skateCode).toBe('duplicate_request');
    const done = await executor.next();
    expect(frameData(done)).toMatchObject({ output: 'emitted 3 lines' });
  });

  it('exits with a clear message on an invalid boot frame', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    await using executor = await rawExecutor({ ...policy, limits: { ...policy.limits, outputBytes: -1 } });
    const code = await new Promise<number | null>((resolve) => executor.child.once('close', resolve));
    expect(code).toBe(2);
  });
});
