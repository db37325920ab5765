import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type FakeReply, fakeMessagesApi, type RecordedBody } from '../support/fake-messages-api.js';
import { modelPromptCache } from '../support/prompt-cache-model.js';
import { runCli } from '../support/run-cli.js';
import { round } from './stats.js';

const CHILDREN = 4;

export interface DispatchCacheFigures {
  /** Children's cached share of their input (bytes read from the cache / bytes sent), with the breakpoint at the dispatch prefix. */
  dispatch_children_cache_hit_rate: number;
  /** The same requests with that breakpoint left out (the system prompt cached only at its end, as before). */
  dispatch_children_cache_hit_rate_without_prefix_breakpoint: number;
  /** Bytes of one child's request, and of its system prompt's shared prefix. */
  dispatch_child_request_bytes: number;
  dispatch_prefix_bytes: number;
  dispatch_children: number;
}

/**
 * `skate -p` whose model starts 4 sub-agents in one turn (each ends at once with complete_task),
 * through the real CLI and SDK against the fake Messages API, which records the requests but does
 * not cache: the hit rate comes from `modelPromptCache` over the recorded children's requests, in
 * bytes, with and without the dispatch-prefix breakpoint (the same requests, so the baseline is
 * measured in the same run).
 */
export async function benchDispatchCache(): Promise<DispatchCacheFigures> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-dispatch-bench-')));
  const call = (id: string, name: string, input: Record<string, unknown>) =>
    ({ type: 'tool_use', id, name, input }) as const;
  const replies: FakeReply[] = [
    {
      type: 'message',
      blocks: Array.from({ length: CHILDREN }, (_, i) =>
        call(`s${i}`, 'spawn_agent', {
          task: `Review module ${i} and report what it does.`,
          read_only: true,
        }),
      ),
      stopReason: 'tool_use',
    },
    ...Array.from(
      { length: CHILDREN },
      (): FakeReply => ({
        type: 'message',
        blocks: [call('c', 'complete_task', { status: 'completed', summary: 'reviewed' })],
        stopReason: 'tool_use',
      }),
    ),
    { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
  ];
  try {
    await using api = await fakeMessagesApi(replies);
    const result = await runCli(
      ['-p', 'review the modules', '--output-format', 'json', '--workspace', workspace],
      {
        env: { ...process.env, ANTHROPIC_API_KEY: 'sk-bench', ANTHROPIC_BASE_URL: api.url },
      },
    );
    if (result.code !== 0) throw new Error(`dispatch-cache bench run failed: ${result.stderr}`);
    const bodies = api.requests.map((request) => request.body).filter((body): body is RecordedBody => !!body);
    const isChild = (body: RecordedBody): boolean =>
      JSON.stringify(body.system ?? '').includes('# You are a sub-agent');
    const rate = (modelled: ReturnType<typeof modelPromptCache>): number => {
      const children = modelled.filter((_, i) => isChild(bodies[i] as RecordedBody));
      const sent = children.reduce((sum, r) => sum + r.inputBytes, 0);
      return round(children.reduce((sum, r) => sum + r.cachedBytes, 0) / sent, 3);
    };
    const child = bodies.find(isChild);
    const system = Array.isArray(child?.system) ? child.system : [];
    return {
      dispatch_children_cache_hit_rate: rate(modelPromptCache(bodies)),
      dispatch_children_cache_hit_rate_without_prefix_breakpoint: rate(
        modelPromptCache(bodies, ({ index, count }) => count > 1 && index === 0),
      ),
      dispatch_child_request_bytes: Buffer.byteLength(JSON.stringify(child ?? {})),
      dispatch_prefix_bytes: system.length > 1 ? Buffer.byteLength(system[0]?.text ?? '') : 0,
      dispatch_children: bodies.filter(isChild).length,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
