import { DateTime } from 'luxon';

/**
 * The next working day (UTC) as `--start` can name it: "tomorrow" when tomorrow is Monday to
 * Friday, else "monday" (the sandbox's hosts work weekdays only: a test of "tomorrow" would find
 * no free times on a Friday or a Saturday).
 */
export function nextWorkday(): { word: string; day: DateTime } {
  const tomorrow = DateTime.utc().plus({ days: 1 }).startOf('day');
  if (tomorrow.weekday <= 5) return { word: 'tomorrow', day: tomorrow };
  return { word: 'monday', day: tomorrow.plus({ days: 8 - tomorrow.weekday }) };
}
