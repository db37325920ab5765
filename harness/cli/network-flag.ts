import { parseHostPattern } from '../../shared/network-pattern.js';
import type { NetworkSetting } from '../../shared/policy.js';
import { UsageError } from './usage-error.js';

/**
 * `--network on|off|HOSTS`: HOSTS is a comma-separated allowlist (`registry.npmjs.org,*.github.com`),
 * where a pattern starting with `!` is denied (`*.github.com,!gist.github.com`).
 */
export function parseNetworkFlag(value: string): NetworkSetting {
  if (value === 'on' || value === 'off') return value;
  const allow: string[] = [];
  const deny: string[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const denied = entry.startsWith('!');
    const text = denied ? entry.slice(1) : entry;
    const parsed = parseHostPattern(text);
    if (typeof parsed === 'string') {
      throw new UsageError(`--network takes on, off or a comma-separated list of hosts: ${parsed}`);
    }
    // A single word is more likely a typo of on/off than an intranet host: those take a port.
    if (
      parsed.kind === 'exact' &&
      !parsed.host.includes('.') &&
      parsed.host !== 'localhost' &&
      parsed.port === undefined
    ) {
      throw new UsageError(
        `--network takes on, off or a comma-separated list of hosts (api.example.com, *.example.com, localhost:5432), not "${value}"`,
      );
    }
    (denied ? deny : allow).push(text);
  }
  if (allow.length === 0) {
    throw new UsageError(
      '--network takes on, off or a comma-separated list of hosts, with at least one host allowed',
    );
  }
  return { allow, deny };
}
