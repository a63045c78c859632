/**
 * The "Inbound demo request" trigger as the unit tests build it: email, company and a region
 * select (required), then optional fields. Each test file keeps its own variant (regions,
 * optional fields, id), since its assertions name them; only the spelling is shared.
 */
import type { Trigger, TriggerField } from '../../src/api/schemas.js';
import { DEMO_TRIGGER } from './args.js';

type FieldOption = NonNullable<TriggerField['options']>[number];

/** The region options, by value, with the sandbox's labels. */
export const REGION = {
  emea: { value: 'emea', label: 'Europe, Middle East and Africa' },
  americas: { value: 'americas', label: 'Americas' },
  apac: { value: 'apac', label: 'Asia Pacific' },
} satisfies Record<string, FieldOption>;

/** The optional select of the demo form. */
export const TEAM_SIZE_FIELD: TriggerField = {
  name: 'team_size',
  label: 'Team size',
  type: 'select',
  required: false,
  options: [{ value: '1-10', label: '1 to 10' }],
};

/** The optional free text of the demo form. */
export const NOTES_FIELD: TriggerField = {
  name: 'notes',
  label: 'Notes',
  type: 'text',
  required: false,
  options: null,
};

export interface DemoTriggerOptions {
  id?: string;
  description?: string;
  /** The region select's options, in order. */
  regions?: FieldOption[];
  /** The fields after region, in order. */
  optional?: TriggerField[];
}

/** The demo trigger; by default every region and both optional fields (team_size, notes). */
export function demoTrigger({
  id = '11111111-1111-4111-8111-111111111111',
  description = 'demo',
  regions = [REGION.emea, REGION.americas, REGION.apac],
  optional = [TEAM_SIZE_FIELD, NOTES_FIELD],
}: DemoTriggerOptions = {}): Trigger {
  return {
    id,
    name: DEMO_TRIGGER,
    description,
    fields: [
      { name: 'email', label: 'Email', type: 'text', required: true, options: null },
      { name: 'company', label: 'Company', type: 'text', required: true, options: null },
      { name: 'region', label: 'Region', type: 'select', required: true, options: regions },
      ...optional,
    ],
  };
}
