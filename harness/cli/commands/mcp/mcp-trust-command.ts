import { consentTrust } from '../../consent-command.js';
import { MCP_SERVERS_CONSENT } from './mcp-servers-consent.js';

/** `skate mcp trust`: see `MCP_SERVERS_CONSENT`. */
export const run = consentTrust(MCP_SERVERS_CONSENT);
