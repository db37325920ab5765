import { consentList } from '../../consent-command.js';
import { MCP_SERVERS_CONSENT } from './mcp-servers-consent.js';

/** `skate mcp list`: see `MCP_SERVERS_CONSENT`. */
export const run = consentList(MCP_SERVERS_CONSENT);
