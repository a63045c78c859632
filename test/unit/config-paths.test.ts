/**
 * Where the config directory is (src/config/paths.ts): SCHEDCTL_CONFIG_DIR, else
 * XDG_CONFIG_HOME/schedctl, else ~/.config/schedctl ($HOME, else the account's home).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../../src/config/paths.js';

describe('configDir', () => {
  it('takes SCHEDCTL_CONFIG_DIR first, as given', () => {
    expect(configDir({ SCHEDCTL_CONFIG_DIR: '/srv/sched', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/srv/sched');
  });

  it('else XDG_CONFIG_HOME/schedctl', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/h' })).toBe('/x/cfg/schedctl');
  });

  it('else $HOME/.config/schedctl; empty values count as unset', () => {
    expect(configDir({ HOME: '/home/ana' })).toBe('/home/ana/.config/schedctl');
    expect(configDir({ SCHEDCTL_CONFIG_DIR: '', XDG_CONFIG_HOME: '', HOME: '/home/ana' })).toBe(
      '/home/ana/.config/schedctl',
    );
  });

  it("else the account's home directory", () => {
    expect(configDir({})).toBe(join(homedir(), '.config', 'schedctl'));
    expect(configDir({ HOME: '' })).toBe(join(homedir(), '.config', 'schedctl'));
  });
});
