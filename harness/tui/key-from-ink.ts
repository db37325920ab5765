import type { Key } from 'ink';
import type { KeyInput, KeyName } from './key-input.js';

/** Ink's key flags as the reducer's KeyInput. */
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
