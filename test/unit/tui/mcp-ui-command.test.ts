import { describe, expect, it } from 'vitest';
import { parseUiCommand } from '../../../harness/tui/ui-command.js';

describe(':mcp commands', () => {
  it('parse the listing, a login (with or without the browser) and a logout', () => {
    expect(parseUiCommand('mcp')).toEqual({ ok: true, command: { type: 'mcp' } });
    expect(parseUiCommand('mcp login remote')).toEqual({
      ok: true,
      command: { type: 'mcp_login', server: 'remote', browser: true },
    });
    expect(parseUiCommand('mcp login remote --no-browser')).toEqual({
      ok: true,
      command: { type: 'mcp_login', server: 'remote', browser: false },
    });
    expect(parseUiCommand('mcp logout remote')).toEqual({
      ok: true,
      command: { type: 'mcp_logout', server: 'remote' },
    });
  });

  it('refuse what they do not take', () => {
    for (const line of [
      'mcp login',
      'mcp login a b',
      'mcp logout',
      'mcp logout a --no-browser',
      'mcp other a',
    ])
      expect(parseUiCommand(line).ok, line).toBe(false);
  });
});
