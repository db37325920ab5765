import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AnyTool } from '../../../executor/define-tool.js';
import { distFile } from '../../../executor/dist-file.js';
import { createExecutor } from '../../../executor/executor.js';
import { toolDefinition } from '../../../executor/tool-definition.js';
import type { LazyTool } from '../../../executor/tool-registry.js';
import { loadEveryTool, TOOL_DEFINITIONS_FILE, toolsFor } from '../../../executor/tools/index.js';
import { readFileTool } from '../../../executor/tools/read-file.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../../../harness/executor-client/executor-client.js';
import type { ExecutorBoot } from '../../../shared/executor-boot.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { trpc } from '../../../shared/trpc.js';
import { testPolicy } from '../../support/policies.js';
import { tempDir } from '../../support/temp-dir.js';

function boot(policy: ResolvedPolicy, diagnosticTools = false): ExecutorBoot {
  return {
    type: 'boot',
    protocol: 1,
    policy,
    enforcement: 'none',
    resourceLimits: 'none',
    commandWrapper: [],
    diagnosticTools,
    maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  };
}

function callerFor(policy: ResolvedPolicy, tools?: readonly (AnyTool | LazyTool)[]) {
  const executor = createExecutor(boot(policy, true), () => {}, {
    ...(tools && { tools }),
    ripgrep: undefined,
  });
  return { executor, caller: trpc.createCallerFactory(executor.router)({}) };
}

/** A lazily listed read_file whose loads are counted. */
function countedReadFile(): { tool: LazyTool; loads: () => number } {
  let loads = 0;
  const tool: LazyTool = {
    definition: toolDefinition(readFileTool),
    async load() {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return readFileTool;
    },
  };
  return { tool, loads: () => loads };
}

describe('tools listed before they are loaded', () => {
  it('the build generated each definition exactly as zod does from the tool now (rebuild when this fails)', async () => {
    const built = JSON.parse(await readFile(distFile(TOOL_DEFINITIONS_FILE), 'utf8')) as unknown[];
    const tools = await loadEveryTool();
    try {
      const now = tools.map((tool) => {
        const { unavailable: _machineSpecific, ...definition } = toolDefinition(tool);
        return definition;
      });
      expect(JSON.stringify(built)).toBe(JSON.stringify(now));
    } finally {
      await Promise.all(tools.map(async (tool) => tool.dispose?.()));
    }
  });

  it('an executor lists the same definitions, byte for byte, as from its tools loaded', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const lazy = callerFor(policy);
    const loaded = await Promise.all(toolsFor(policy, true).map((tool) => tool.load()));
    const eager = callerFor(policy, loaded);
    try {
      const listed = await lazy.caller.listTools();
      expect(listed.map((tool) => tool.name)).toEqual([
        'read_file',
        'list_dir',
        'glob',
        'grep',
        'write_file',
        'edit_file',
        'shell',
        'js_eval',
        'noop',
        'emit_lines',
      ]);
      expect(JSON.stringify(listed)).toBe(JSON.stringify(await eager.caller.listTools()));
    } finally {
      await Promise.all([lazy.executor.registry.dispose(), eager.executor.registry.dispose()]);
    }
  });

  it('loads a tool once, on its first call (concurrent first calls share the load), never for listTools', async () => {
    await using dir = await tempDir();
    const { tool, loads } = countedReadFile();
    const { caller } = callerFor(testPolicy(dir.path), [tool]);
    await caller.listTools();
    await caller.health();
    expect(loads()).toBe(0);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((callId) =>
        caller.callTool({ callId, name: 'read_file', input: { path: 'none' } }),
      ),
    );
    expect(results.map((result) => result.code)).toEqual(['not_found', 'not_found', 'not_found']);
    await caller.callTool({ callId: 'd', name: 'read_file', input: { path: 'none' } });
    expect(loads()).toBe(1);
  });

  it('a bad input to a lazily loaded tool gets the same typed error as before', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const lazy = callerFor(policy, [countedReadFile().tool]).caller;
    const eager = callerFor(policy, [readFileTool]).caller;
    for (const input of [{}, { path: '' }, { path: 'a', offset: 0 }, { path: 'a', limit: 1.5 }, 'text']) {
      const request = { callId: 'bad', name: 'read_file', input };
      const result = await lazy.callTool(request);
      expect(result).toMatchObject({ isError: true, code: 'invalid_input' });
      expect(result.output).toMatch(/^invalid input for read_file:\n/);
      expect(result).toEqual(await eager.callTool(request));
    }
  });

  it('a tool whose module fails to load answers with a failure result, not a throw', async () => {
    await using dir = await tempDir();
    let attempts = 0;
    const broken: LazyTool = {
      definition: { ...toolDefinition(readFileTool), name: 'broken' },
      load: () => Promise.reject(new Error(`chunk missing (${++attempts})`)),
    };
    const { caller } = callerFor(testPolicy(dir.path), [broken]);
    const result = await caller.callTool({ callId: 'x', name: 'broken', input: {} });
    expect(result).toEqual({
      output: 'broken could not be loaded: chunk missing (1)',
      isError: true,
      code: 'failed',
    });
    // A failed load is not remembered: the next call tries again.
    expect((await caller.callTool({ callId: 'x2', name: 'broken', input: {} })).output).toBe(
      'broken could not be loaded: chunk missing (2)',
    );
    expect(await caller.callTool({ callId: 'y', name: 'nope', input: {} }).then((r) => r.code)).toBe(
      'unknown_tool',
    );
  });
});
