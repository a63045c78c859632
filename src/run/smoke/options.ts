/**
 * Flag validation for `schedctl smoke`, done before any request so a typo costs no
 * request (exit 2 via UsageError).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathSegment } from '../../api/paths.js';
import { UsageError } from '../../errors.js';
import { isValidEmail, parseKeyValues } from '../../domain/inputs.js';
import type { SmokeInput, SmokeInputNames } from '../../domain/smoke/types.js';
import { FIRE_FLAGS } from '../trigger/flag-names.js';

/** The run's inputs as the smoke checks' texts name them: `skipped: pass --book to …`. */
export const SMOKE_FLAGS: SmokeInputNames = {
  ...FIRE_FLAGS,
  event: '--event',
  trigger: '--trigger',
  field: '--field',
  book: '--book',
  maxLatency: '--max-latency',
};

export interface SmokeFlags {
  event?: string;
  trigger?: string;
  email?: string;
  field?: string[];
  book?: boolean;
  maxLatency?: string;
  junit?: string;
}

export function parseSmokeFlags(flags: SmokeFlags): SmokeInput & { junit?: string } {
  const input: SmokeInput & { junit?: string } = { book: Boolean(flags.book) };
  if (flags.event !== undefined) {
    if (flags.event.trim() === '') throw new UsageError('invalid --event "": expected an event id or slug');
    // The one check of a path segment (api/paths.ts), here so that no check has run yet.
    pathSegment(flags.event, '--event');
    input.event = flags.event;
  }
  if (flags.email !== undefined && !isValidEmail(flags.email)) {
    throw new UsageError(`invalid --email "${flags.email}": not an email address`, {
      hint: 'e.g. --email smoke-test@yourcompany.com',
    });
  }
  const fields = parseKeyValues(flags.field ?? [], '--field');
  if (flags.trigger !== undefined) {
    if (flags.trigger.trim() === '') throw new UsageError('invalid --trigger "": expected a trigger id or name');
    if (flags.email === undefined) {
      throw new UsageError('--trigger needs --email: the lead address the trigger is fired with', {
        hint: 'e.g. --trigger "Inbound demo request" --email smoke-test@yourcompany.com --field company=Acme',
      });
    }
    input.trigger = { ref: flags.trigger, email: flags.email, fields };
  } else if (Object.keys(fields).length > 0) {
    throw new UsageError('--field only applies with --trigger', { hint: 'add --trigger <id|name> --email <address>' });
  }
  if (input.book && flags.email === undefined) {
    throw new UsageError('--book needs --email: the lead address of the test meeting it creates', {
      hint: 'use an address you own, e.g. --email smoke-test@yourcompany.com',
    });
  }
  if (flags.email !== undefined) input.email = flags.email;
  if (flags.maxLatency !== undefined) {
    const ms = Number(flags.maxLatency);
    if (!/^\s*\d+\s*$/.test(flags.maxLatency) || !Number.isSafeInteger(ms) || ms <= 0) {
      throw new UsageError(
        `invalid --max-latency "${flags.maxLatency}": expected a whole number of milliseconds above 0`,
        {
          hint: 'e.g. --max-latency 2000',
        },
      );
    }
    input.maxLatencyMs = ms;
  }
  if (flags.junit !== undefined) {
    const path = resolve(flags.junit);
    const dir = dirname(path);
    if (flags.junit.trim() === '' || !existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new UsageError(`invalid --junit "${flags.junit}": the folder ${dir} does not exist`, {
        hint: 'create it first, e.g. mkdir -p reports',
      });
    }
    if (existsSync(path) && statSync(path).isDirectory()) {
      throw new UsageError(
        `invalid --junit "${flags.junit}": it is a folder; give a file name, e.g. ${flags.junit.replace(/\/?$/, '/smoke.xml')}`,
      );
    }
    input.junit = path;
  }
  return input;
}
