import { describe, expect, it } from 'vitest';
import { hostCheck, isLoopbackHost, quotedHost } from '../../../harness/executor-relay/host-check.js';

describe('hostCheck (DNS rebinding)', () => {
  it('a loopback server answers IP literals, localhost and --allow-host names, on any port', () => {
    const allowed = hostCheck('127.0.0.1', ['skate.internal']);
    for (const host of [
      '127.0.0.1:7800',
      'localhost',
      'LOCALHOST:1',
      '[::1]:7800',
      '10.0.0.2',
      'skate.internal:443',
    ]) {
      expect(allowed(host), host).toBe(true);
    }
    for (const host of [
      undefined,
      '',
      'rebind.example',
      'rebind.example:7800',
      'localhost.rebind.example',
      'a b',
      'x/y',
      'u@localhost',
      'x'.repeat(300),
    ]) {
      expect(allowed(host), String(host)).toBe(false);
    }
  });

  it('a server on another address accepts every Host unless names are given', () => {
    expect(hostCheck('0.0.0.0', [])('anything.example')).toBe(true);
    const named = hostCheck('0.0.0.0', ['skate.example.com']);
    expect(named('skate.example.com:7800')).toBe(true);
    expect(named('192.168.1.5:7800')).toBe(true);
    expect(named('localhost')).toBe(false);
    expect(named('rebind.example')).toBe(false);
  });

  it('knows loopback addresses, and quotes a Host short and printable', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::', 'example.com'].some(isLoopbackHost)).toBe(false);
    expect(quotedHost(`a\u001b]0;x\u0007${'b'.repeat(200)}`)).toMatch(/^Host "a\?\]0;x\?b+…"$/);
    expect(quotedHost(undefined)).toBe('no Host header');
  });
});
