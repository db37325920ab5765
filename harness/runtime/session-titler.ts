import type { Message } from '../../shared/conversation.js';
import { messageText } from '../engine/message-text.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { SessionWriter } from '../session/session-writer.js';
import { requestTitle, titleModel } from './session-title.js';

/** How long closing or switching the session waits for a title request still out. */
const TITLE_GRACE_MS = 2_000;

export interface TitleAfterRun {
  provider: ModelProvider;
  /** The session's model: the title model is chosen from it. */
  model: string;
  writer: SessionWriter;
  /** The conversation after the run: its first prompt and first reply are what is named. */
  messages: readonly Message[];
  /** The prompt of the run, should the conversation have none (compacted away). */
  prompt: string;
}

/**
 * An agent's session titles: after a session's first run, a cheap model call
 * for a short title, recorded in its log when it comes. Not awaited by the
 * run: the person gets the prompt back at once. A failure records nothing
 * (the session is then listed under the first line of its first prompt).
 */
export class SessionTitler {
  private titling: { controller: AbortController; done: Promise<void> } | undefined;

  /** Asks for a title in the background; one request at a time. */
  start(input: TitleAfterRun): void {
    if (this.titling) return;
    const first = input.messages.find(
      (message) => message.role === 'user' && !message.content.some((block) => block.type === 'tool_result'),
    );
    const reply = input.messages.find((message) => message.role === 'assistant');
    const model = titleModel(input.model);
    const controller = new AbortController();
    const { writer } = input;
    const done = requestTitle({
      provider: input.provider,
      model,
      prompt: (first && messageText(first)) || input.prompt,
      ...(reply && { reply: messageText(reply) }),
      signal: controller.signal,
    }).then((result) => {
      // A session switched or closed meanwhile abandoned this; its writer takes nothing more.
      if (result && !controller.signal.aborted && writer.status === 'open') {
        writer.append({ type: 'title', title: result.title, usage: result.usage, model });
      }
    });
    this.titling = { controller, done };
    void done.finally(() => {
      if (this.titling?.done === done) this.titling = undefined;
    });
  }

  /** Resolves once no title request is in flight; with `abandon`, one still running is aborted. */
  async settled(options: { abandon?: boolean } = {}): Promise<void> {
    if (options.abandon) this.titling?.controller.abort();
    await this.titling?.done;
  }

  /**
   * Before the session's log closes (a switch, or close): a request still out
   * gets a short grace (a cheap model answers well within it), then is
   * abandoned, so quitting right after the first answer keeps the title.
   */
  async stop(): Promise<void> {
    const titling = this.titling;
    if (!titling) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, TITLE_GRACE_MS);
    });
    await Promise.race([titling.done, grace]);
    clearTimeout(timer);
    await this.settled({ abandon: true });
  }
}
