import * as z from 'zod';
import { inputJsonSchema } from './input-json-schema.js';

const Status = z
  .enum(['completed', 'blocked', 'failed'])
  .describe(
    'completed: the task is done; blocked: it cannot go on without something you lack; failed: it went wrong.',
  );

const Paths = (what: string) => z.array(z.string()).default([]).describe(what);

/** What every sub-agent reports: how it went, what it touched and what is left. */
export const GenericResult = z.object({
  status: Status,
  summary: z.string().min(1).describe('What you did and found, for the agent that gave you the task.'),
  files_changed: Paths('Files you created, changed or deleted, relative to the workspace.'),
  tests_run: Paths('Test or check commands you ran.'),
  follow_ups: Paths('Work you left for someone else, one item each.'),
});
export type GenericResult = z.infer<typeof GenericResult>;

/** An implementer's report: the generic one plus whether its tests passed. */
export const ImplementerResult = GenericResult.extend({
  tests_passed: z
    .boolean()
    .describe('True when every test you ran passed; false when one failed or you ran none.'),
  notes: z
    .string()
    .optional()
    .describe('Anything the caller must know: assumptions, risks, choices you made.'),
});
export type ImplementerResult = z.infer<typeof ImplementerResult>;

export const ReviewIssue = z.object({
  severity: z.enum(['critical', 'major', 'minor', 'nit']),
  file: z.string().min(1).describe('The file, relative to the workspace.'),
  line: z.number().int().positive().optional(),
  description: z.string().min(1).describe('What is wrong and why it matters.'),
  suggestion: z.string().optional().describe('How to fix it.'),
});
export type ReviewIssue = z.infer<typeof ReviewIssue>;

/** A reviewer's report: severity-tagged issues. */
export const ReviewerResult = z.object({
  status: Status,
  summary: z.string().min(1).describe('Your overall verdict, in a few sentences.'),
  issues: z.array(ReviewIssue).describe('Every problem found; an empty list when there are none.'),
});
export type ReviewerResult = z.infer<typeof ReviewerResult>;

/** The contracts a parent may ask a sub-agent to report in, by name. */
export const RESULT_CONTRACTS = {
  generic: GenericResult,
  implementer: ImplementerResult,
  reviewer: ReviewerResult,
} as const;

export type ResultContractName = keyof typeof RESULT_CONTRACTS;
export const ResultContractName = z.enum(['generic', 'implementer', 'reviewer']);

/** Any validated sub-agent result. */
export type SubAgentResult = GenericResult | ImplementerResult | ReviewerResult;

/** The contract's JSON Schema as the model sees it (`io: 'input'`: fields with defaults are optional). */
export function contractJsonSchema(name: ResultContractName): Record<string, unknown> {
  return inputJsonSchema(RESULT_CONTRACTS[name]);
}

/**
 * What a `complete_task`-style tool validates against: a sub-agent's named contract, or the JSON
 * Schema a user gave (`--output-schema`). One validation-and-repair path serves both.
 */
export interface ResultContract {
  /** Named in the tool's description and messages: `generic`, `--output-schema`. */
  label: string;
  schema: z.ZodType;
  /** The tool's input schema, as the model sees it. */
  jsonSchema: Record<string, unknown>;
}

/** A sub-agent's contract by name. */
export function namedContract(name: ResultContractName): ResultContract {
  return { label: name, schema: RESULT_CONTRACTS[name], jsonSchema: contractJsonSchema(name) };
}

/**
 * A contract from a user's JSON Schema. Its top level must be an object (a tool's input is one);
 * throws a TypeError saying what is wrong when the schema is not usable.
 */
export function jsonSchemaContract(label: string, jsonSchema: unknown): ResultContract {
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw new TypeError('a JSON Schema is a JSON object');
  }
  const { $schema: _ignored, ...rest } = jsonSchema as Record<string, unknown>;
  if (rest.type !== 'object') {
    throw new TypeError(
      'the schema\'s top level must be {"type": "object", …} (the answer is a tool\'s input)',
    );
  }
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new TypeError(
      `not a JSON Schema Skate can check: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { label, schema, jsonSchema: rest };
}
