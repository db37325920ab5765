import type { Key } from 'ink';
import type { KeyInput, KeyName } from './key-input.js';

/**
 * Ink's key flags as the reducer's KeyInputs. Keys typed faster than they are
 * read arrive as one chunk ("fix it\r"): a chunk ending in its only Enter is
 * the text, then Enter. A chunk with Enters inside is a paste and stays text.
 */
export function keysFromInk(input: string, key: Key): KeyInput[] {
  if (input.length > 1 && input.endsWith('\r') && input.indexOf('\r') === input.length - 1) {
    return [keyFromInk(input.slice(0, -1), { ...key, return: false }), { text: '', name: 'return' }];
  }
  return [keyFromInk(input, key)];
}

/** One key (or one pasted chunk) as the reducer's KeyInput. */
export function keyFromInk(input: string, key: Key): KeyInput {
  const name = keyName(key);
  const base: KeyInput = { text: name ? '' : input };
  if (name) base.name = name;
  if (key.ctrl) base.ctrl = true;
  if (key.meta) base.meta = true;
  if (key.shift) base.shift = true;
  return base;
}

function keyName(key: Key): KeyName | undefined {
  if (key.return) return 'return';
  if (key.escape) return 'escape';
  if (key.tab) return 'tab';
  // Most terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`.
  if (key.backspace || key.delete) return 'backspace';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  return undefined;
}
