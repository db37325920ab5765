/** Keys the UI reacts to by name; everything else arrives as `text`. */
export type KeyName =
  | 'return'
  | 'escape'
  | 'tab'
  | 'backspace'
  | 'delete'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end';

/** One key press, or one pasted chunk of text, independent of the terminal library. */
export interface KeyInput {
  /** What was typed or pasted; for Ctrl-x, the letter x. Empty for a named key. */
  text: string;
  name?: KeyName;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** Shorthand for tests and chord tables: `key('j')`, `key('d', { ctrl: true })`, `key('', { name: 'escape' })`. */
export function key(text: string, extra: Omit<KeyInput, 'text'> = {}): KeyInput {
  return { text, ...extra };
}

export const isCtrl = (input: KeyInput, letter: string): boolean =>
  input.ctrl === true && input.text.toLowerCase() === letter;
