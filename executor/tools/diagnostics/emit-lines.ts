import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { defineTool } from '../../define-tool.js';

/** Streams numbered lines, optionally slowly; lets tests watch streaming and cancellation. */
export const emitLinesTool = defineTool({
  name: 'emit_lines',
  effect: 'read',
  streamsOutput: true,
  description:
    'Diagnostics: emits `count` lines on stdout, `intervalMs` apart, then returns how many it sent.',
  input: z.object({
    count: z.number().int().min(0).max(100_000),
    intervalMs: z.number().int().min(0).max(60_000).default(0),
  }),
  async run(input, ctx) {
    for (let i = 1; i <= input.count; i++) {
      if (input.intervalMs > 0) await sleep(input.intervalMs, undefined, { signal: ctx.signal });
      ctx.emit('stdout', `line ${i}`);
    }
    return { output: `emitted ${input.count} lines` };
  },
});
