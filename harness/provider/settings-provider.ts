import type { ProviderSettings } from '../../shared/settings.js';
import { createAnthropicProvider } from './anthropic-provider.js';
import type { ModelProvider } from './model-provider.js';

/**
 * The CLI bundle loads this module from a bundle of its own (`dist/cli/provider-sdks.js`, see
 * scripts/bundle.mjs): the SDKs it imports (openai, Bedrock's AWS signing, Google auth) are two
 * thirds of the code and most runs need none of them. So it takes the catalog's answers as
 * arguments rather than importing the catalog, whose state would be a second, empty copy there.
 *
 * The ModelProvider a settings `providers` entry describes, on its vendor's SDK. Its key is read
 * from `apiKeyEnv` in the harness's environment (a variable every sandbox is denied). Throws an
 * Error saying what is missing; the router turns it into the run's error.
 */
export async function createSettingsProvider(
  name: string,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv,
  /** The catalog's window of a model of this provider (by its own id). */
  windowOf: (model: string) => number,
  onDebug?: (line: string) => void,
): Promise<ModelProvider> {
  const key = settings.apiKeyEnv ? env[settings.apiKeyEnv] : undefined;
  if (settings.apiKeyEnv && !key) {
    throw new Error(`providers.${name}: ${settings.apiKeyEnv} (its apiKeyEnv) is not set in the environment`);
  }
  const debug = onDebug && ((line: string) => onDebug(`[${name}] ${line}`));
  switch (settings.type) {
    case 'openai-chat':
    case 'openai-responses': {
      if (!settings.baseURL) throw new Error(`providers.${name}: ${settings.type} needs a baseURL`);
      const { createOpenAiProvider } = await import('./openai-provider.js');
      return createOpenAiProvider({
        api: settings.type === 'openai-chat' ? 'chat' : 'responses',
        name,
        baseURL: settings.baseURL,
        apiKey: key,
        apiKeyEnv: settings.apiKeyEnv,
        defaultHeaders: settings.headers,
        contextWindow: windowOf,
        ...(debug && { onDebug: debug }),
      });
    }
    case 'anthropic':
      if (!key) throw new Error(`providers.${name}: the anthropic type needs an apiKeyEnv`);
      return createAnthropicProvider({
        apiKey: key,
        ...(settings.baseURL && { baseURL: settings.baseURL }),
        ...(settings.headers && { defaultHeaders: settings.headers }),
        ...(debug && { onDebug: debug }),
      });
    case 'bedrock': {
      const { AnthropicBedrock } = await import('@anthropic-ai/bedrock-sdk');
      const secrets = [key, env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN].filter((each): each is string =>
        Boolean(each),
      );
      return createAnthropicProvider({
        apiKey: '',
        ...(debug && { onDebug: debug }),
        client: {
          name,
          serverName: `Amazon Bedrock${settings.region ? ` (${settings.region})` : ''}`,
          contextWindow: windowOf,
          secrets,
          make: (fetch, logger) =>
            new AnthropicBedrock({
              // A Bedrock API key if the settings name one; else the AWS credential chain signs.
              ...(key && { apiKey: key }),
              ...(settings.region && { awsRegion: settings.region }),
              ...(settings.baseURL && { baseURL: settings.baseURL }),
              ...(settings.headers && { defaultHeaders: settings.headers }),
              maxRetries: 0,
              fetch,
              logger,
              logLevel: 'warn',
            }),
        },
      });
    }
    case 'vertex': {
      const { AnthropicVertex } = await import('@anthropic-ai/vertex-sdk');
      const { OAuth2Client } = await import('google-auth-library');
      // An access token from apiKeyEnv (`gcloud auth print-access-token`); else Google's default credentials.
      const authClient = key ? new OAuth2Client() : undefined;
      authClient?.setCredentials({ access_token: key });
      return createAnthropicProvider({
        apiKey: '',
        ...(debug && { onDebug: debug }),
        client: {
          name,
          serverName: `Vertex AI${settings.region ? ` (${settings.region})` : ''}`,
          contextWindow: windowOf,
          secrets: key ? [key] : [],
          make: (fetch, logger) =>
            new AnthropicVertex({
              region: settings.region ?? env.CLOUD_ML_REGION ?? null,
              projectId: settings.projectId ?? null,
              ...(settings.baseURL && { baseURL: settings.baseURL }),
              ...(settings.headers && { defaultHeaders: settings.headers }),
              ...(authClient && { authClient }),
              maxRetries: 0,
              fetch,
              logger,
              logLevel: 'warn',
            }),
        },
      });
    }
  }
}
