import { pathToFileURL } from 'node:url';
import type { FakeReply } from './fake-messages-api.js';
import { skateTerminal } from './skate-terminal.js';

const CART = `export function total(items) {
  let sum = 0;
  for (const item of items) sum += item.price;
  return sum;
}
`;

/** A short session: the model reads a file, edits it and runs a check, then sums up. */
const REPLIES: FakeReply[] = [
  {
    type: 'message',
    blocks: [
      { type: 'text', text: 'I will read `cart.ts` first.' },
      { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'cart.ts' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 2100, output_tokens: 64, cache_read_input_tokens: 1800 },
  },
  {
    type: 'message',
    blocks: [
      {
        type: 'tool_use',
        id: 'tu_edit',
        name: 'edit_file',
        input: {
          path: 'cart.ts',
          old_string: '  for (const item of items) sum += item.price;',
          new_string: '  for (const item of items) sum += item.price * item.quantity;',
        },
      },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 2300, output_tokens: 90, cache_read_input_tokens: 2000 },
  },
  {
    type: 'message',
    blocks: [
      { type: 'tool_use', id: 'tu_check', name: 'shell', input: { command: 'grep -n quantity cart.ts' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 2450, output_tokens: 40, cache_read_input_tokens: 2200 },
  },
  {
    type: 'message',
    blocks: [{ type: 'text', text: '**Fixed:** `total` now multiplies each price by its `quantity`.' }],
    usage: { input_tokens: 2600, output_tokens: 30, cache_read_input_tokens: 2400 },
  },
];

/**
 * Runs the built `skate` in tmux at `columns` × `rows` on a scripted session
 * and returns the screen as text, with the edit expanded: the capture shown in
 * the README (`npm run build && node dist/test/support/capture-tui-session.js`).
 */
export async function captureTuiSession(columns = 120, rows = 22): Promise<string> {
  await using s = await skateTerminal({ replies: REPLIES, columns, rows, files: { 'cart.ts': CART } });
  const { terminal } = s;
  await terminal.waitFor('INSERT');
  await s.send('total() ignores quantities; fix it');
  await terminal.waitFor('Fixed:');
  // NORMAL, focus the edit (prompt, text, read_file, edit_file) and expand it.
  await s.normal();
  await terminal.type(']]]]');
  await terminal.waitFor('▌ ▸ edit_file(cart.ts)');
  await terminal.keys('Enter');
  await terminal.waitFor('▾ edit_file(cart.ts)');
  const screen = await terminal.screen();
  await s.command('q');
  await s.exited();
  return screen.replace(/\n+$/, '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(
    await captureTuiSession(Number(process.argv[2] ?? 120), Number(process.argv[3] ?? 22)),
  );
}
