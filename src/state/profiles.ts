/**
 * Profiles (`config.json`: `{defaultProfile?, profiles: {name: {baseUrl, apiKey, rate?}}}`, kept by
 * conf in config-file.ts). Each change is one locked read-modify-write, so parallel `profile add`s all land.
 */
import { statSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { ConfigFileStore } from './config-file.js';
import { own, put } from './records.js';
import type { Profile } from './schemas.js';

export type { Profile };
export interface ProfileListing {
  name: string;
  profile: Profile;
  isDefault: boolean;
}

export class Profiles {
  constructor(private readonly file: ConfigFileStore) {}

  get path(): string {
    return this.file.path;
  }

  /** The default name and all profiles from one read (what resolving the target needs). */
  async snapshot(): Promise<{ defaultProfile: string | undefined; profiles: Record<string, Profile> }> {
    const { defaultProfile, profiles } = this.file.read();
    return { defaultProfile, profiles };
  }

  async list(): Promise<ProfileListing[]> {
    const { defaultProfile, profiles } = this.file.read();
    return Object.entries(profiles)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({ name, profile, isDefault: name === defaultProfile }));
  }

  async names(): Promise<string[]> {
    return Object.keys(this.file.read().profiles).sort();
  }

  async get(name: string): Promise<Profile | undefined> {
    return own(this.file.read().profiles, name);
  }

  /** As stored: it may name a profile that no longer exists (the target resolution checks). */
  async defaultName(): Promise<string | undefined> {
    return this.file.read().defaultProfile;
  }

  async set(name: string, profile: Profile, makeDefault = false): Promise<void> {
    // A JSON reader drops this key (it is the prototype), so it would be lost on the next read.
    if (name === '__proto__') throw new UsageError('"__proto__" cannot be a profile name: choose another');
    await this.file.update((config) => {
      put(config.profiles, name, profile);
      const current = config.defaultProfile;
      // The first profile becomes the default: nobody wants to pass --profile with only one.
      if (makeDefault || current === undefined || !own(config.profiles, current)) config.defaultProfile = name;
    });
  }

  /** False when there was no such profile. Removing the default leaves no default. */
  async remove(name: string): Promise<boolean> {
    return this.file.update((config) => {
      if (!own(config.profiles, name)) return false;
      delete config.profiles[name];
      if (config.defaultProfile === name) delete config.defaultProfile;
      return true;
    });
  }

  /** False (and nothing changed) when there is no such profile. */
  async setDefault(name: string): Promise<boolean> {
    return this.file.update((config) => {
      if (!own(config.profiles, name)) return false;
      config.defaultProfile = name;
      return true;
    });
  }

  /**
   * True when the key file grants any access to group or others (readable leaks the keys,
   * writable lets someone redirect baseUrl). The next write makes it 0600 again; the
   * directory is never chmod-ed (it may be shared), so the caller warns instead.
   */
  keyFileExposed(): boolean {
    try {
      return (statSync(this.path).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  }
}
