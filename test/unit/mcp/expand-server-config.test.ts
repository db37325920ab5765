import { describe, expect, it } from 'vitest';
import { expandServerConfig } from '../../../harness/mcp/expand-server-config.js';

describe('expandServerConfig', () => {
  const env = { TOKEN: 't0k', HOST: 'example.com', EMPTY: '' };

  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers', () => {
    expect(
      expandServerConfig(
        {
          command: '${HOST}-bin',
          args: ['--t=${TOKEN}', '${NOPE:-d}', '${EMPTY:-e}'],
          env: { A: '${TOKEN}' },
        },
        { env },
      ),
    ).toEqual({
      ok: true,
      config: { command: 'example.com-bin', args: ['--t=t0k', 'd', 'e'], env: { A: 't0k' } },
    });
    expect(
      expandServerConfig(
        { type: 'http', url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        { env },
      ),
    ).toEqual({
      ok: true,
      config: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t0k' } },
    });
  });

  it('refuses an unset variable without a default, and a forbidden one even with a default', () => {
    const unset = expandServerConfig({ command: 'x', args: ['${NOPE}'] }, { env });
    expect(unset).toMatchObject({ ok: false, reason: expect.stringContaining('${NOPE} is not set') });
    const forbidden = expandServerConfig(
      { type: 'sse', url: 'https://e.com', headers: { K: '${TOKEN:-x}' } },
      { env, forbidden: (name) => name === 'TOKEN' },
    );
    expect(forbidden).toMatchObject({ ok: false, reason: expect.stringContaining("Skate's credentials") });
  });
});
