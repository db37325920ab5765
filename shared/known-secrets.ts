import { envAllows } from './path-patterns.js';

/**
 * One list of what Skate knows to be secret in an environment (ARCHITECTURE.md, "Invariants of
 * the boundary"). Every entry is withheld from every executor, command and sandbox the harness
 * starts, under every policy (`full` and `--sandbox best-effort` included), by name and by value:
 * a variable carrying an entry's value under another name is withheld too. Whatever a policy's
 * `environment.allow` says. Secrets that are not in the environment (a `--token-file`'s token) or
 * whose names come from the user's settings are added at run time (`harness/sandbox/executor-env.ts`).
 *
 * Left out on purpose, because they name something rather than hold it: `AWS_PROFILE`,
 * `AWS_REGION`, `AWS_ROLE_ARN`, `GOOGLE_CLOUD_PROJECT`, `CLOUD_ML_REGION`. The keys a profile
 * selects live in `~/.aws` and `~/.config/gcloud`, which the shipped restricted policies deny.
 */
export interface KnownSecret {
  /** A variable name, or a prefix ending in `*` (the syntax of a policy's `environment.allow`). */
  readonly name: string;
  /** What it holds, and whose it is. */
  readonly holds: string;
  /** For a prefix: the variables under it that Skate or its providers read (the tests set each). */
  readonly examples?: readonly string[];
}

export const KNOWN_SECRETS: readonly KnownSecret[] = [
  {
    name: 'SKATE_EXECUTOR_TOKEN',
    holds: 'the bearer token of `skate executor serve`, and the one a harness presents to it',
  },
  { name: 'SKATE_SERVE_TOKEN', holds: 'the bearer token of `skate serve`' },
  {
    name: 'ANTHROPIC_*',
    holds:
      'the Anthropic API key and auth token, where requests carrying them go (ANTHROPIC_BASE_URL), and the Bedrock and Vertex settings of the Anthropic SDKs',
    examples: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL'],
  },
  {
    name: 'CLAUDE_*',
    holds: "Claude Code's OAuth token and settings, which a user of both tools may have exported",
    examples: ['CLAUDE_CODE_OAUTH_TOKEN'],
  },
  {
    name: 'OPENAI_*',
    holds: "the OpenAI SDK's key, organization, project and base URL (the OpenAI provider)",
    examples: ['OPENAI_API_KEY', 'OPENAI_ORG_ID', 'OPENAI_BASE_URL'],
  },
  { name: 'AWS_ACCESS_KEY_ID', holds: 'the AWS access key the Bedrock provider signs with' },
  { name: 'AWS_SECRET_ACCESS_KEY', holds: 'the secret of that access key' },
  { name: 'AWS_SESSION_TOKEN', holds: 'temporary AWS credentials' },
  { name: 'AWS_BEARER_TOKEN_BEDROCK', holds: 'a Bedrock API key' },
  {
    name: 'AWS_CONTAINER_AUTHORIZATION_TOKEN',
    holds: 'the token a container credentials endpoint (ECS, EKS Pod Identity) asks for',
  },
  {
    name: 'AWS_WEB_IDENTITY_TOKEN_FILE',
    holds:
      'where the web identity token AWS credentials are exchanged for lies (the file itself is masked only by a deny entry)',
  },
  {
    name: 'GOOGLE_APPLICATION_CREDENTIALS',
    holds:
      'where the service-account key the Vertex provider authenticates with lies (the file itself is masked only by a deny entry)',
  },
];

/** Whether a variable is one of the known secrets, or one of `alsoNamed` (names from settings). */
export function isKnownSecret(name: string, alsoNamed: ReadonlySet<string> = new Set()): boolean {
  return alsoNamed.has(name) || KNOWN_SECRETS.some((secret) => envAllows(secret.name, name));
}

/**
 * Values shorter than this are withheld only under their own names: a flag such as
 * `ANTHROPIC_LOG=debug` or `CLAUDE_X=1` must not take every variable that contains "debug" or "1"
 * with it. Every credential is longer (servers refuse tokens under 16 characters).
 */
export const MIN_SECRET_VALUE_CHARS = 8;

/** Whether `value` carries one of `secrets` (whole, or inside it: `Bearer <key>`, `https://u:<token>@host`). */
export function carriesSecret(value: string, secrets: Iterable<string>): boolean {
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_VALUE_CHARS && value.includes(secret)) return true;
  }
  return false;
}
