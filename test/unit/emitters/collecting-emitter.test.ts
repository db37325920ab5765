import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../../harness/emitters/collecting-emitter.js';

describe('createCollectingEmitter', () => {
  it('keeps events in order and filters them by type', () => {
    const seen: string[] = [];
    const emitter = createCollectingEmitter((event) => seen.push(event.type));
    emitter.emit({ type: 'turn_start', agent: [], turn: 1 });
    emitter.emit({ type: 'text_delta', agent: [], text: 'a' });
    emitter.emit({ type: 'text_delta', agent: [], text: 'b' });
    expect(emitter.types()).toEqual(['turn_start', 'text_delta', 'text_delta']);
    expect(emitter.ofType('text_delta').map((event) => event.text)).toEqual(['a', 'b']);
    expect(emitter.first('turn_start')?.turn).toBe(1);
    expect(emitter.first('error')).toBeUndefined();
    expect(seen).toEqual(emitter.types());
    emitter.clear();
    expect(emitter.events).toHaveLength(0);
  });
});
