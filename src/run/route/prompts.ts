/**
 * The wizard's questions (@inquirer/prompts), always on ctx.io's stdin and stderr so stdout
 * carries only the result. Loaded only when a terminal can be prompted.
 * Every string built from server data (trigger names, field labels, option labels) passes
 * sanitizeText: inquirer writes messages and choices to the terminal as they are.
 * The hold countdown is measured on the server's clock (its Date header), as expiresAt is.
 */
import { controlCharacterIn } from '../../api/request-text.js';
import { confirm, input, search, select } from '@inquirer/prompts';
import type { Trigger, TriggerField } from '../../api/schemas.js';
import type { Target } from '../../config/target.js';
import type { Context } from '../../context.js';
import { isValidEmail } from '../../domain/inputs.js';
import type { GuestDetails, RouteAsker, SlotAnswer, SlotPage } from '../../domain/route/types.js';
import { dayKey, formatInZone, formatWithUtc, relativeMinutes, serverNow } from '../../domain/time.js';
import { CancelledError } from '../../errors.js';
import { MAX_GUESTS } from '../../limits.js';
import { pickDayThenTime } from '../../ui/day-time-picker.js';
import { sanitizeText as clean } from '../../ui/sanitize.js';

/** The one rule for free text sent to the API (api/request-text.ts): the answer is asked again, never sent. */
function plainAnswer(v: string): true | string {
  const char = controlCharacterIn(v.trim());
  return (
    char === undefined || `it holds the control character ${char}: type it on one line, without control characters`
  );
}

export function promptAsker(
  ctx: Context,
  opts: { zone: string; leadZone?: string | undefined; target: Target },
): RouteAsker {
  const io = { input: ctx.io.stdin, output: ctx.io.stderr };
  const say = (line = '') => ctx.io.stderr.write(`${clean(line)}\n`);
  const label = (f: TriggerField) => `${clean(f.label)}${f.required ? '' : ' (optional)'}`;
  let zone = opts.zone;

  return {
    async trigger(triggers) {
      const id = await search<string>(
        {
          message: 'Trigger (type to filter)',
          source: async (term) => {
            const t = (term ?? '').toLowerCase();
            return triggers
              .filter((x) => !t || x.name.toLowerCase().includes(t) || x.description.toLowerCase().includes(t))
              .map((x) => ({
                name: clean(`${x.name}  ${x.description}`),
                value: x.id,
                short: clean(x.name),
                description: clean(`fields: ${x.fields.map((f) => f.name).join(', ')}`),
              }));
          },
          pageSize: 10,
        },
        io,
      );
      const chosen = triggers.find((x) => x.id === id);
      if (!chosen) throw new CancelledError('no trigger chosen');
      return chosen;
    },
    async email() {
      const value = await input(
        {
          message: "Lead's email",
          validate: (v) => isValidEmail(v.trim()) || 'enter a valid email address, e.g. ada@acme.com',
        },
        io,
      );
      return value.trim();
    },
    async form(_trigger: Trigger, fields: TriggerField[]) {
      const answers: Record<string, string> = {};
      for (const f of fields) {
        if (f.options) {
          const choices = f.options.map((o) => ({ name: clean(o.label), value: o.value, short: clean(o.label) }));
          answers[f.name] = await select<string>(
            {
              message: label(f),
              choices: f.required ? choices : [{ name: '(leave empty)', value: '', short: '(empty)' }, ...choices],
              pageSize: 10,
            },
            io,
          );
        } else {
          answers[f.name] = (
            await input(
              {
                message: label(f),
                validate: (v) => (f.required && v.trim() === '' ? `${clean(f.label)} is required` : plainAnswer(v)),
              },
              io,
            )
          ).trim();
        }
      }
      return answers;
    },
    async reuse(r, trigger) {
      say(
        `A scheduler outcome for ${r.email} from "${trigger.name}" is already held (workflow run ${r.executionId}, fired ${formatInZone(r.firedAt, zone)}).`,
      );
      say(
        'Reusing it starts no new workflow run; firing again repeats CRM writes and notifications and counts for routing fairness.',
      );
      return confirm({ message: 'Reuse it instead of firing again?', default: true }, io);
    },
    async confirmFire(s) {
      const rows: Array<[string, string]> = [
        ['trigger', s.trigger.name],
        ['email', s.email],
      ];
      for (const f of s.trigger.fields) {
        const value = s.responses[f.name];
        if (value === undefined) continue;
        const option = f.options?.find((o) => o.value === value);
        rows.push([f.name, option ? `${option.label} (${value})` : value]);
      }
      const width = Math.max(...rows.map(([k]) => k.length));
      say('');
      for (const [k, v] of rows) say(`  ${k.padEnd(width)}  ${v}`);
      // Where it goes, so a sandbox session never surprises anyone in production.
      const where = opts.target.profileName ? `on profile ${opts.target.profileName}` : 'with SCHEDCTL_API_KEY';
      return confirm(
        {
          message: clean(
            `Fire "${s.trigger.name}" for ${s.email} ${where} at ${opts.target.baseUrl}? (starts a workflow run)`,
          ),
          default: true,
        },
        io,
      );
    },
    async pickSlot(page: SlotPage): Promise<SlotAnswer> {
      let within = page.within;
      for (;;) {
        const hold = relativeMinutes(page.expiresAt, serverNow(ctx.clock.now(), (await ctx.http()).serverSkewMs()));
        const holdText =
          hold === 'unknown'
            ? 'hold expiry unknown'
            : hold.startsWith('in ')
              ? `hold expires ${hold}`
              : `hold expired ${hold}`;
        // The ways on (later times, the other zone) sit above the days, so each is one key away.
        const extras = [{ name: `Show later times (from ${formatInZone(page.to, zone)})`, value: 'later' }];
        if (page.earlier)
          extras.push({ name: `Show earlier times (before ${formatInZone(page.from, zone)})`, value: 'earlier' });
        if (opts.leadZone && opts.leadZone !== opts.zone) {
          const other = zone === opts.zone ? opts.leadZone : opts.zone;
          extras.push({
            name: `Show times in ${other === opts.leadZone ? "the lead's zone" : 'your zone'} (${other})`,
            value: 'zone',
          });
        }
        const answer = await pickDayThenTime(io, {
          message: 'Pick a time',
          detail: holdText,
          zone,
          now: ctx.clock.now(),
          slots: page.slots,
          extras,
          within,
          openDay: page.openDay ? dayKey(page.openDay, zone) : undefined,
          range: { from: page.from, to: page.to },
        });
        within = undefined;
        if (answer.kind === 'day') return answer;
        if (answer.kind === 'slot') return answer;
        if (answer.value === 'later') return { kind: 'later' };
        if (answer.value === 'earlier') return { kind: 'earlier' };
        zone = zone === opts.zone ? (opts.leadZone ?? opts.zone) : opts.zone;
      }
    },
    async guests(): Promise<GuestDetails> {
      const details: GuestDetails = { guests: [] };
      if (!(await confirm({ message: 'Add guest details (name, phone, extra guests)?', default: false }, io)))
        return details;
      const optional = async (message: string) =>
        (await input({ message: `${message} (optional)`, validate: plainAnswer }, io)).trim();
      const firstName = await optional('First name');
      const lastName = await optional('Last name');
      const phone = await optional('Phone');
      if (firstName) details.firstName = firstName;
      if (lastName) details.lastName = lastName;
      if (phone) details.phone = phone;
      while (details.guests.length < MAX_GUESTS) {
        const guest = (
          await input(
            {
              message: `Extra guest email ${details.guests.length + 1} of up to ${MAX_GUESTS} (Enter to finish)`,
              validate: (v) =>
                v.trim() === '' || isValidEmail(v.trim()) || 'enter a valid email address, or nothing to finish',
            },
            io,
          )
        ).trim();
        if (!guest) break;
        details.guests.push(guest);
      }
      return details;
    },
    async confirmBook(s) {
      const who = [s.email, ...s.guests.guests].join(', ');
      const ok = await confirm(
        { message: clean(`Book ${formatWithUtc(s.slot, zone)} for ${who}?`), default: true },
        io,
      );
      if (!ok) throw new CancelledError('not booked (the reservation lapses by itself)');
      return ok;
    },
    async retryEmail(trigger, previous, reason) {
      say(clean(`"${trigger.name}" refused ${previous}: ${reason}`));
      say("Enter the lead's company email; every other answer is kept.");
      const next = await input(
        {
          message: "Lead's work email",
          validate: (v) =>
            (isValidEmail(v.trim()) && v.trim().toLowerCase() !== previous.toLowerCase()) ||
            'enter another valid email address, e.g. ada@acme.com',
        },
        io,
      );
      return next.trim();
    },
    async refire() {
      say('The scheduling session of this workflow run ended, so it can no longer book.');
      say(
        'Firing the trigger again starts a new workflow run: it repeats the CRM writes and notifications and counts for routing fairness.',
      );
      return confirm({ message: 'Fire the trigger again and pick a new time?', default: true }, io);
    },
  };
}
