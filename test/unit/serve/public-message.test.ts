import { describe, expect, it } from 'vitest';
import { MAX_PUBLIC_MESSAGE_CHARS, publicMessage } from '../../../harness/serve/public-message.js';

describe('publicMessage: what a client of skate serve may read in an error', () => {
  const root = '/srv/projects';

  it('names paths inside the server workspace relative to it, and any other host path not at all', () => {
    expect(publicMessage('/srv/projects/app/.skate/sessions/01.jsonl: no event x in session 01', root)).toBe(
      'app/.skate/sessions/01.jsonl: no event x in session 01',
    );
    expect(publicMessage('workspace /srv/projects does not exist', root)).toBe('workspace . does not exist');
    expect(publicMessage("ENOENT: no such file, open '/home/u/.skate/x'", root)).toBe(
      "ENOENT: no such file, open '<host path>'",
    );
    expect(publicMessage('cannot read /srv/projects-other/x or /etc/passwd', root)).toBe(
      'cannot read <host path> or <host path>',
    );
  });

  it('keeps the API paths it gives as advice, and text that is not a path', () => {
    const advice =
      'interrupt it (POST /v1/sessions/01/commands {"type":"interrupt"}); GET /openapi.json lists them';
    expect(publicMessage(advice, root)).toBe(advice);
    expect(publicMessage('the workspace cannot be / (the whole filesystem)', root)).toBe(
      'the workspace cannot be / (the whole filesystem)',
    );
    expect(publicMessage('send application/json or text/event-stream, auto < ask', root)).toBe(
      'send application/json or text/event-stream, auto < ask',
    );
  });

  it('cuts an echoed input', () => {
    const long = publicMessage(`workspace ${'x'.repeat(100_000)} does not exist`, root);
    expect(long.length).toBeLessThan(MAX_PUBLIC_MESSAGE_CHARS + 40);
    expect(long).toMatch(/… \(\d+ more characters\)$/);
  });
});
