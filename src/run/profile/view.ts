import { UsageError } from '../../errors.js';

/** The JSON shape of a profile in every profile command's output (the key masked). */
export interface ProfileView {
  name: string;
  baseUrl: string;
  key: string;
  isDefault: boolean;
}

export function unknownProfile(name: string, known: string[]): UsageError {
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'no profiles yet; add one with `schedctl profile add <name>`',
  });
}
