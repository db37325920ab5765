import * as z from 'zod';

const ShowResponse = z.looseObject({
  parameters: z.string().optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
});

export interface OllamaWindow {
  tokens: number;
  /** Which figure it is, for the note that reports it. */
  source: string;
}

/**
 * Asks the server behind an OpenAI-compatible `/v1` URL whether it is Ollama and, if so, the
 * model's context window (`POST /api/show`): the `num_ctx` the model is served with when its
 * Modelfile sets one (what Ollama truncates the prompt to), else the window it was trained with
 * (`<arch>.context_length`). Any other answer (not Ollama, no such model, no answer within 3 s)
 * is undefined.
 */
export async function askOllamaContextWindow(
  baseURL: string,
  model: string,
  headers: Record<string, string> = {},
): Promise<OllamaWindow | undefined> {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return undefined;
  }
  url.pathname = `${url.pathname.replace(/\/v1\/?$/, '').replace(/\/$/, '')}/api/show`;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model }),
      signal: AbortSignal.timeout(3000),
    });
    if (!response.ok) return undefined;
    const parsed = ShowResponse.safeParse(await response.json());
    if (!parsed.success) return undefined;
    const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(parsed.data.parameters ?? '');
    if (numCtx) return { tokens: Number(numCtx[1]), source: 'num_ctx of the model' };
    for (const [key, value] of Object.entries(parsed.data.model_info ?? {})) {
      if (key.endsWith('.context_length') && Number.isInteger(value) && (value as number) > 0) {
        return { tokens: value as number, source: key };
      }
    }
    return undefined;
  } catch {
    return undefined;
  }
}
