import { OpenAI } from 'openai/client';

/**
 * The SDK's client. Kept behind this one module so that the `openai` package is loaded only when
 * a settings provider speaks one of its formats (the CLI imports providers lazily).
 */
export class OpenAiClient extends OpenAI {}
