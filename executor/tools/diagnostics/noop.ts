import * as z from 'zod';
import { defineTool } from '../../define-tool.js';

/** Does nothing; measures the cost of the call path itself in tests and benchmarks. */
export const noopTool = defineTool({
  name: 'noop',
  effect: 'read',
  description: 'Diagnostics: returns "ok" at once.',
  input: z.object({}),
  async run() {
    return { output: 'ok' };
  },
});
