import { UsageError } from '../../errors.js';

export function unknownProfile(name: string, known: string[]): UsageError {
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length ? `known profiles: ${known.join(', ')}` : 'no profiles yet; add one with `schedctl profile add <name>`',
  });
}
