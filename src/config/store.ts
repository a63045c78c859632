/**
 * The profile key store: one JSON file (mode 0600, in a 0700 directory) managed by conf.
 * Journal files (lost-response journal, remembered outcomes) live beside it via `openJsonStore`.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import Conf from 'conf';

export interface Profile {
  baseUrl: string;
  apiKey: string;
}

type ConfigShape = {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
};

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing directory's mode alone; the key store's directory must be private.
  chmodSync(dir, 0o700);
}

export function openJsonStore<T extends Record<string, unknown>>(dir: string, name: string, defaults: T): Conf<T> {
  ensurePrivateDir(dir);
  return new Conf<T>({
    cwd: dir,
    configName: name,
    defaults,
    configFileMode: 0o600,
    // Profile names and ids may contain dots: keys are literal.
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
  });
}

export class ProfileStore {
  private readonly conf: Conf<ConfigShape>;
  constructor(readonly dir: string) {
    this.conf = openJsonStore<ConfigShape>(dir, 'config', { profiles: {} });
  }
  get path(): string {
    return this.conf.path;
  }
  list(): Array<{ name: string; profile: Profile; isDefault: boolean }> {
    const def = this.defaultName();
    return Object.entries(this.profiles())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({ name, profile, isDefault: name === def }));
  }
  get(name: string): Profile | undefined {
    return this.profiles()[name];
  }
  names(): string[] {
    return Object.keys(this.profiles()).sort();
  }
  defaultName(): string | undefined {
    return this.conf.get('defaultProfile');
  }
  set(name: string, profile: Profile, makeDefault: boolean): void {
    const profiles = { ...this.profiles(), [name]: profile };
    this.conf.set('profiles', profiles);
    // The first profile becomes the default: nobody wants to pass --profile with only one.
    if (makeDefault || !this.defaultName() || !profiles[this.defaultName() ?? '']) this.conf.set('defaultProfile', name);
  }
  remove(name: string): boolean {
    const profiles = { ...this.profiles() };
    if (!profiles[name]) return false;
    delete profiles[name];
    this.conf.set('profiles', profiles);
    if (this.defaultName() === name) this.conf.delete('defaultProfile');
    return true;
  }
  setDefault(name: string): void {
    this.conf.set('defaultProfile', name);
  }
  private profiles(): Record<string, Profile> {
    return this.conf.get('profiles') ?? {};
  }
}
