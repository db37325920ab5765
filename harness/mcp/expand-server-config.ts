import { isHttpServer, type McpServerConfig } from '../../shared/mcp-servers.js';

/** `${VAR}` or `${VAR:-default}`, as Claude Code expands them in `.mcp.json`. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface ExpandOptions {
  /** The harness's environment (the variables come from it). */
  env: NodeJS.ProcessEnv;
  /** A variable this file may not read (a workspace's file and the harness's secrets); undefined: any. */
  forbidden?: ((name: string) => boolean) | undefined;
}

export type Expanded = { ok: true; config: McpServerConfig } | { ok: false; reason: string };

/**
 * A server's `command`, `args`, `env`, `url` and `headers` with `${VAR}` and `${VAR:-default}`
 * replaced from the harness's environment. A variable that is unset and has no default, or that
 * the file may not read, leaves the server out (the reason says which): never a silent empty value.
 */
export function expandServerConfig(config: McpServerConfig, options: ExpandOptions): Expanded {
  const problems: string[] = [];
  const expand = (text: string): string =>
    text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
      if (options.forbidden?.(name)) {
        problems.push(`\${${name}} names one of Skate's credentials, which a workspace's file may not read`);
        return '';
      }
      const value = options.env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      problems.push(`\${${name}} is not set and has no default (write \${${name}:-default})`);
      return whole;
    });
  const record = (values: Record<string, string> | undefined) =>
    values && Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value)]));
  let expanded: McpServerConfig;
  if (isHttpServer(config)) {
    const headers = record(config.headers);
    expanded = { ...config, url: expand(config.url), ...(headers && { headers }) };
  } else {
    const env = record(config.env);
    expanded = {
      ...config,
      command: expand(config.command),
      ...(config.args && { args: config.args.map(expand) }),
      ...(env && { env }),
    };
  }
  if (problems.length > 0) return { ok: false, reason: [...new Set(problems)].join('; ') };
  return { ok: true, config: expanded };
}
