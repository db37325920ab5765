import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalAllowlist,
  compileAllowlist,
  judgeHost,
  narrowNetwork,
  networkNarrowerOrEqual,
} from '../../../shared/network-allowlist.js';
import { addressNeedsExplicitPort, parseHostPattern } from '../../../shared/network-pattern.js';
import { NetworkPolicy } from '../../../shared/policy.js';

const allows = (allow: string[], host: string, port: number, deny: string[] = []): boolean =>
  judgeHost(compileAllowlist({ allow, deny }), host, port).allowed;

describe('host patterns', () => {
  it('matches an exact host, on the web ports only when no port is named', () => {
    expect(allows(['api.example.com'], 'api.example.com', 443)).toBe(true);
    expect(allows(['api.example.com'], 'API.Example.COM.', 80)).toBe(true);
    expect(allows(['api.example.com'], 'api.example.com', 8443)).toBe(false);
    expect(allows(['api.example.com'], 'x.api.example.com', 443)).toBe(false);
    expect(allows(['api.example.com:8443'], 'api.example.com', 8443)).toBe(true);
    expect(allows(['api.example.com:8443'], 'api.example.com', 443)).toBe(false);
  });

  it('matches *. wildcards on whole labels, never by substring', () => {
    const list = ['*.github.com'];
    expect(allows(list, 'api.github.com', 443)).toBe(true);
    expect(allows(list, 'a.b.github.com', 443)).toBe(true);
    expect(allows(list, 'github.com', 443)).toBe(false);
    expect(allows(list, 'evil-github.com', 443)).toBe(false);
    expect(allows(list, 'github.com.evil.test', 443)).toBe(false);
    expect(allows(list, 'xgithub.com', 443)).toBe(false);
    expect(allows(['github.com'], 'github.com.evil.test', 443)).toBe(false);
  });

  it('lets deny win over allow, on every port when it names none', () => {
    expect(allows(['*.github.com'], 'gist.github.com', 443, ['gist.github.com'])).toBe(false);
    expect(allows(['*.github.com:8080'], 'gist.github.com', 8080, ['gist.github.com'])).toBe(false);
    expect(allows(['*.github.com'], 'api.github.com', 443, ['gist.github.com'])).toBe(true);
  });

  it('refuses IP literals unless that very literal is listed', () => {
    expect(allows(['localhost:5432'], '127.0.0.1', 5432)).toBe(false);
    expect(allows(['*.github.com'], '140.82.112.3', 443)).toBe(false);
    expect(allows(['127.0.0.1:5432'], '127.0.0.1', 5432)).toBe(true);
    expect(allows(['[::1]:8080'], '[::1]', 8080)).toBe(true);
    expect(allows(['[::1]:8080'], '::1', 8080)).toBe(true);
    expect(allows(['127.0.0.1:5432'], '::ffff:127.0.0.1', 5432)).toBe(false);
  });

  it('refuses what getaddrinfo would read as an address, and names that are not names', () => {
    const list = compileAllowlist({ allow: ['*.example.com', '127.0.0.1'] });
    for (const host of [
      '127.1',
      '0x7f000001',
      '2130706433',
      'a_b.example.com',
      'exämple.com',
      '',
      'a..b',
      '-a.com',
    ]) {
      expect(judgeHost(list, host, 443), host).toMatchObject({ allowed: false, reason: 'invalid_host' });
    }
  });

  it('rejects malformed patterns with a reason', () => {
    for (const bad of ['*', '*.com', 'a*.b.com', 'host:0', 'host:70000', '::1', 'exa mple.com', 'a_b.com']) {
      expect(typeof parseHostPattern(bad), bad).toBe('string');
    }
    expect(NetworkPolicy.safeParse({ mode: 'allowlist', allow: ['*'] }).success).toBe(false);
    expect(
      NetworkPolicy.safeParse({ mode: 'allowlist', allow: ['*.github.com', 'localhost:5432'] }).success,
    ).toBe(true);
  });

  it('admits loopback and link-local answers only under a pattern that names the port', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.1',
      '::1',
      '0.0.0.0',
      '169.254.169.254',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(addressNeedsExplicitPort(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '203.0.113.80', '2001:db8::1']) {
      expect(addressNeedsExplicitPort(address), address).toBe(false);
    }
    const verdict = judgeHost(
      compileAllowlist({ allow: ['localhost', 'localhost:5432'] }),
      'localhost',
      5432,
    );
    expect(verdict.allowed && verdict.pattern.port).toBe(5432);
  });
});

const HOSTS = [
  'github.com',
  'api.github.com',
  'gist.github.com',
  'a.b.github.com',
  'evil-github.com',
  'localhost',
  'registry.npmjs.org',
  '127.0.0.1',
];
const PATTERNS = [
  '*.github.com',
  'api.github.com',
  'gist.github.com',
  '*.b.github.com',
  'github.com',
  'localhost:5432',
  'localhost',
  'registry.npmjs.org',
  '127.0.0.1:5432',
  '*.github.com:8080',
];
const allowlistArb = fc.record({
  mode: fc.constant('allowlist' as const),
  allow: fc.subarray(PATTERNS),
  deny: fc.subarray(['gist.github.com', '*.b.github.com', 'localhost:5432']),
});
const networkArb: fc.Arbitrary<NetworkPolicy> = fc.oneof(
  fc.constant<NetworkPolicy>({ mode: 'off' }),
  fc.constant<NetworkPolicy>({ mode: 'on' }),
  allowlistArb,
);
const probeArb = fc.record({
  host: fc.constantFrom(...HOSTS),
  port: fc.constantFrom(80, 443, 5432, 8080),
  address: fc.constantFrom('203.0.113.9', '127.0.0.1'),
});

/** What the proxy would let through: the host judged, then the address it resolved to. */
function reaches(network: NetworkPolicy, probe: { host: string; port: number; address: string }): boolean {
  if (network.mode !== 'allowlist') return network.mode === 'on';
  const verdict = judgeHost(compileAllowlist(network), probe.host, probe.port);
  return (
    verdict.allowed &&
    (verdict.pattern.port !== undefined || verdict.ip || !addressNeedsExplicitPort(probe.address))
  );
}

describe('network narrowing (properties)', () => {
  it('never lets a child reach what its parent cannot', () => {
    fc.assert(
      fc.property(
        networkArb,
        fc.option(networkArb, { nil: undefined }),
        fc.array(probeArb, { maxLength: 10 }),
        (parent, request, probes) => {
          const child = narrowNetwork(parent, request);
          expect(networkNarrowerOrEqual(child, parent)).toBe(true);
          for (const probe of probes) if (reaches(child, probe)) expect(reaches(parent, probe)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('accepts as narrower only networks that reach nothing more (the checker is sound)', () => {
    fc.assert(
      fc.property(
        networkArb,
        networkArb,
        fc.array(probeArb, { minLength: 1, maxLength: 10 }),
        (child, parent, probes) => {
          if (!networkNarrowerOrEqual(child, parent)) return;
          for (const probe of probes) if (reaches(child, probe)) expect(reaches(parent, probe)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is idempotent, and keeps an allowlist parent under an "on" request', () => {
    fc.assert(
      fc.property(networkArb, networkArb, (parent, request) => {
        const once = narrowNetwork(parent, request);
        expect(narrowNetwork(once, request)).toEqual(once);
      }),
    );
    const parent = canonicalAllowlist({ allow: ['*.github.com'], deny: ['gist.github.com'] });
    expect(narrowNetwork(parent, { mode: 'on' })).toEqual(parent);
    expect(narrowNetwork(parent, { mode: 'off' })).toEqual({ mode: 'off' });
    expect(
      narrowNetwork(parent, { mode: 'allowlist', allow: ['api.github.com', 'example.com'], deny: [] }),
    ).toEqual({ mode: 'allowlist', allow: ['api.github.com'], deny: ['gist.github.com'] });
  });

  it('refuses a child that drops a parent deny or widens a port', () => {
    const parent: NetworkPolicy = {
      mode: 'allowlist',
      allow: ['*.github.com', 'localhost'],
      deny: ['gist.github.com'],
    };
    expect(networkNarrowerOrEqual({ mode: 'allowlist', allow: ['api.github.com'], deny: [] }, parent)).toBe(
      false,
    );
    expect(
      networkNarrowerOrEqual(
        { mode: 'allowlist', allow: ['localhost:443'], deny: ['gist.github.com'] },
        parent,
      ),
    ).toBe(false);
    expect(networkNarrowerOrEqual({ mode: 'on' }, parent)).toBe(false);
    expect(networkNarrowerOrEqual({ mode: 'off' }, parent)).toBe(true);
  });
});
