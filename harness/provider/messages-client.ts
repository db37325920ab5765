import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages';

/**
 * The SDK's client with only the Messages API, the one resource Skate calls. The package root's
 * `Anthropic` also carries beta, files, skills, models, organization, ... and the bundle keeps
 * all of it: measured on Node 20 here, importing the SDK took 46–49 ms of CPU as the root's
 * bundle (1.3 MB) against 23–24 ms for this one (0.34 MB). The SDK builds its clients this way
 * (`Anthropic` is `BaseAnthropic` plus resources), so requests, retries and errors are its own.
 */
export class MessagesClient extends BaseAnthropic {
  readonly messages: Messages = new Messages(this);
}
