import { describe, expect, it } from 'vitest';
import {
  approvalChoice,
  approvalOptions,
  questionAnswer,
  questionOptions,
} from '../../../harness/acp/permission-options.js';
import { formAnswers, questionForm } from '../../../harness/acp/question-form.js';

describe('approvals as ACP permission requests', () => {
  it('offers the four ACP kinds, and each comes back as the engine decision', () => {
    const options = approvalOptions('shell');
    expect(options.map((option) => option.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    expect(options[1]?.name).toBe('Always allow shell');
    const chosen = options.map((option) =>
      approvalChoice({ outcome: 'selected', optionId: option.optionId }),
    );
    expect(chosen).toEqual([
      { decision: 'approve', remember: false },
      { decision: 'approve', remember: true },
      { decision: 'reject', remember: false },
      { decision: 'reject', remember: true },
    ]);
  });

  it('treats a cancelled request and an option it never offered as a rejection', () => {
    expect(approvalChoice({ outcome: 'cancelled' })).toMatchObject({ decision: 'reject', remember: false });
    expect(approvalChoice({ outcome: 'selected', optionId: 'allow_everything' })).toEqual({
      decision: 'reject',
      remember: false,
    });
  });
});

describe('ask_user questions', () => {
  it('offers a question with options as permission options, plus a way to skip', () => {
    const options = questionOptions(['sqlite', 'postgres']);
    expect(options.map((option) => option.name)).toEqual(['sqlite', 'postgres', 'Skip this question']);
    const ids = options.map((option) => option.optionId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(questionAnswer(['sqlite', 'postgres'], { outcome: 'selected', optionId: ids[1]! })).toBe(
      'postgres',
    );
    expect(questionAnswer(['sqlite', 'postgres'], { outcome: 'selected', optionId: ids[2]! })).toBe('');
    expect(questionAnswer(['sqlite', 'postgres'], { outcome: 'cancelled' })).toBe('');
  });

  it('asks all questions in one elicitation form and reads the answers back in order', () => {
    const questions = [
      { question: 'Which database?', options: ['sqlite', 'postgres'] },
      { question: 'Which features?', options: ['auth', 'search'], multiSelect: true },
      { question: 'Anything else?' },
    ];
    expect(questionForm(questions)).toEqual({
      type: 'object',
      properties: {
        q1: { type: 'string', title: 'Which database?', enum: ['sqlite', 'postgres'] },
        q2: { type: 'array', title: 'Which features?', items: { type: 'string', enum: ['auth', 'search'] } },
        q3: { type: 'string', title: 'Anything else?' },
      },
    });
    expect(
      formAnswers(questions, { action: 'accept', content: { q1: 'postgres', q2: ['auth', 'search'] } }),
    ).toEqual(['postgres', 'auth, search', '']);
    expect(formAnswers(questions, { action: 'decline' })).toEqual(['', '', '']);
  });
});
