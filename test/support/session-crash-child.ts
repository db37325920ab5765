/**
 * The process test/integration/session-crash.test.ts kills: it creates a
 * session in the workspace given as argv[2], prints the file's path, then logs
 * `crashCycle` after `crashCycle` as fast as the writer takes them until killed.
 */
import { createSessionWriter } from '../../harness/session/session-writer.js';
import { crashCycle, usage } from './session-fixtures.js';

const workspace = process.argv[2];
if (!workspace) throw new Error('usage: session-crash-child WORKSPACE');
const writer = await createSessionWriter(
  { workspace, model: 'claude-sonnet-4-5', policy: 'execute' },
  { onError: (error) => process.stderr.write(`${error.message}\n`) },
);
process.stdout.write(`${writer.file}\n`);
for (let index = 0; ; index++) {
  const cycle = crashCycle(index);
  writer.userMessage(cycle.prompt);
  writer.assistantMessage(cycle.reply, usage(100, 10), 'claude-sonnet-4-5');
  writer.toolResults(cycle.results);
  // Let the queue drain now and then, as an engine waiting on the model would, and bound it.
  if (index % 32 === 31) await writer.flush();
  else if (index % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
}
