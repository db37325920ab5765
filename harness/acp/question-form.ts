import type { CreateElicitationResponse, ElicitationSchema } from '@agentclientprotocol/sdk';
import type { EngineEvent } from '../../shared/engine-events.js';

type Question = Extract<EngineEvent, { type: 'ask_user_request' }>['questions'][number];

/**
 * The answer given for a free-text question when the client can only offer
 * choices (no form elicitation): the model reads it and goes on.
 */
export const FREE_TEXT_UNSUPPORTED =
  '(no answer: this editor can offer choices but cannot take a free-text answer; decide yourself and state what you assumed)';

/** ask_user's questions as one elicitation form: a choice, several choices, or free text each. */
export function questionForm(questions: readonly Question[]): ElicitationSchema {
  const properties: NonNullable<ElicitationSchema['properties']> = {};
  questions.forEach((question, i) => {
    const options = question.options ?? [];
    properties[`q${i + 1}`] =
      options.length > 0 && question.multiSelect
        ? { type: 'array', title: question.question, items: { type: 'string', enum: [...options] } }
        : options.length > 0
          ? { type: 'string', title: question.question, enum: [...options] }
          : { type: 'string', title: question.question };
  });
  return { type: 'object', properties };
}

/** The answers an elicitation response gives, one per question ('' for none: declined, cancelled, left out). */
export function formAnswers(questions: readonly Question[], response: CreateElicitationResponse): string[] {
  const content =
    response.action === 'accept' && 'content' in response && typeof response.content === 'object'
      ? (response.content ?? {})
      : {};
  return questions.map((_, i) => {
    const value = (content as Record<string, unknown>)[`q${i + 1}`];
    if (Array.isArray(value)) return value.map(String).join(', ');
    return value === undefined || value === null ? '' : String(value);
  });
}
