/**
 * Replies from a local model while Claude is rate limited: any OpenAI-compatible chat-completions
 * endpoint (Ollama at http://127.0.0.1:11434/v1, llama.cpp's server, vLLM...), through the openai client.
 */
import type OpenAI from 'openai';
import type { FallbackConfig } from '../config/schema.js';
import { RudderError } from '../errors.js';
import { WRAPPER_SYSTEM_PROMPT, wrapExternal } from '../security/wrap.js';

export interface FallbackInput {
  text: string;
  source?: string;
}

export class LocalModel {
  private client: Promise<OpenAI> | undefined;

  constructor(private readonly config: FallbackConfig) {}

  /** The openai client is loaded on first use: a gateway that never falls back never holds its modules. */
  private openai(): Promise<OpenAI> {
    this.client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: this.config.baseURL,
          apiKey: this.config.apiKey,
          timeout: this.config.timeoutSeconds * 1000,
          maxRetries: 0,
        }),
    );
    return this.client;
  }

  async answer(inputs: FallbackInput[]): Promise<string> {
    try {
      const res = await (await this.openai()).chat.completions.create({
        model: this.config.model,
        messages: [
          {
            role: 'system',
            content:
              `You stand in for a coding agent that is rate limited; answer briefly and say what you ` +
              `cannot do without it. ${WRAPPER_SYSTEM_PROMPT}`,
          },
          ...inputs.map((i) => ({ role: 'user' as const, content: wrapExternal(i.text, { source: i.source }) })),
        ],
      });
      const text = res.choices[0]?.message?.content?.trim();
      if (!text) throw new Error('the model returned no text');
      return text;
    } catch (err) {
      throw new RudderError(
        'FALLBACK_UNAVAILABLE',
        `${this.config.baseURL} (${this.config.model}): ${(err as Error).message}`,
        {},
        err,
      );
    }
  }

  /** For `rudder doctor`: lists the models the endpoint serves. */
  async probe(): Promise<{ ok: boolean; detail: string }> {
    try {
      const models = await (await this.openai()).models.list();
      const ids = models.data.map((m) => m.id);
      const has = ids.includes(this.config.model);
      return {
        ok: has,
        detail: has
          ? `${this.config.model} is served`
          : `${this.config.model} is not among the served models (${ids.slice(0, 5).join(', ') || 'none'})`,
      };
    } catch (err) {
      return { ok: false, detail: `${this.config.baseURL} did not answer: ${(err as Error).message}` };
    }
  }
}
