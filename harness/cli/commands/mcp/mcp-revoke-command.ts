import { consentRevoke } from '../../consent-command.js';
import { MCP_SERVERS_CONSENT } from './mcp-servers-consent.js';

/** `skate mcp revoke`: see `MCP_SERVERS_CONSENT`. */
export const run = consentRevoke(MCP_SERVERS_CONSENT);
