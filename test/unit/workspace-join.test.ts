import { describe, expect, it } from 'vitest';
import { planJoin, type KeyRow } from '../../src/domain/workspace-join.js';

const URL = 'https://api.example.com';
const K1 = `${URL}#key:1111111111111111`;
const ACME = `${URL}#ws:acme`;

describe('planJoin: a key is in one workspace, which only grows', () => {
  it('a key never seen starts the workspace of its own fingerprint, to be written', () => {
    expect(planJoin([], { url: URL, fingerprint: '1111111111111111' })).toEqual({
      kind: 'join',
      workspace: K1,
      merge: [],
      names: [],
      how: 'new',
      write: true,
    });
  });

  it('a recorded key stays where it is: nothing to write', () => {
    const rows: KeyRow[] = [{ fingerprint: 'f1', workspace: ACME, names: ['acme'] }];
    expect(planJoin(rows, { url: URL, fingerprint: 'f1' })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [],
      names: ['acme'],
      how: 'recorded',
      write: false,
    });
    // The same name again, in another case and with spaces: still nothing to write.
    expect(planJoin(rows, { url: URL, fingerprint: 'f1', name: ' ACME ' })).toMatchObject({
      workspace: ACME,
      write: false,
      how: 'recorded',
    });
  });

  it("a name joins the workspace that carries it, merging the key's former workspace into it", () => {
    const rows: KeyRow[] = [
      { fingerprint: 'f1', workspace: ACME, names: ['acme'] },
      { fingerprint: 'f2', workspace: `${URL}#key:f2`, names: [] },
    ];
    expect(planJoin(rows, { url: URL, fingerprint: 'f2', name: 'Acme' })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [`${URL}#key:f2`],
      names: ['acme'],
      how: 'name',
      write: true,
    });
  });

  it("a name no key carries yet starts the named workspace; the key's former one merges into it", () => {
    const rows: KeyRow[] = [{ fingerprint: 'f1', workspace: K1, names: [] }];
    expect(planJoin(rows, { url: URL, fingerprint: 'f1', name: 'beta' })).toEqual({
      kind: 'join',
      workspace: `${URL}#ws:beta`,
      merge: [K1],
      names: ['beta'],
      how: 'name',
      write: true,
    });
    // A new key with a new name: the named workspace, nothing to merge.
    expect(planJoin([], { url: URL, fingerprint: 'f9', name: 'Beta' })).toMatchObject({
      workspace: `${URL}#ws:beta`,
      merge: [],
      names: ['beta'],
      how: 'name',
      write: true,
    });
  });

  it('a key already named adds a second name to its row, staying in the workspace of the first', () => {
    const rows: KeyRow[] = [
      { fingerprint: 'f1', workspace: ACME, names: ['acme'] },
      { fingerprint: 'f2', workspace: ACME, names: ['beta'] },
    ];
    expect(planJoin(rows, { url: URL, fingerprint: 'f1', name: 'beta' })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [],
      names: ['acme', 'beta'],
      how: 'recorded',
      write: true,
    });
  });

  it("a rotated key joins its predecessor's workspace; a workspace it was in merges into that one", () => {
    expect(planJoin([], { url: URL, fingerprint: 'f2', join: ACME })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [],
      names: [],
      how: 'rotation',
      write: true,
    });
    const rows: KeyRow[] = [{ fingerprint: 'f2', workspace: `${URL}#key:f2`, names: [] }];
    expect(planJoin(rows, { url: URL, fingerprint: 'f2', join: ACME })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [`${URL}#key:f2`],
      names: [],
      how: 'rotation',
      write: true,
    });
    // Already there: nothing to do.
    expect(
      planJoin([{ fingerprint: 'f2', workspace: ACME, names: [] }], { url: URL, fingerprint: 'f2', join: ACME }),
    ).toMatchObject({
      how: 'recorded',
      merge: [],
      write: false,
    });
  });

  it("a name wins over a predecessor: both the predecessor's and the key's workspaces merge into the named one", () => {
    const rows: KeyRow[] = [
      { fingerprint: 'f1', workspace: K1, names: [] },
      { fingerprint: 'f2', workspace: `${URL}#key:f2`, names: [] },
      { fingerprint: 'f3', workspace: ACME, names: ['acme'] },
    ];
    expect(planJoin(rows, { url: URL, fingerprint: 'f2', name: 'acme', join: K1 })).toEqual({
      kind: 'join',
      workspace: ACME,
      merge: [K1, `${URL}#key:f2`],
      names: ['acme'],
      how: 'name',
      write: true,
    });
  });

  it('--new-workspace: a fresh workspace for a key no workspace holds, refused for a held key or a carried name', () => {
    expect(planJoin([], { url: URL, fingerprint: 'f1', fresh: true, join: ACME })).toEqual({
      kind: 'join',
      workspace: `${URL}#key:f1`,
      merge: [],
      names: [],
      how: 'new',
      write: true,
    });
    expect(planJoin([], { url: URL, fingerprint: 'f1', fresh: true, name: 'Gamma' })).toMatchObject({
      workspace: `${URL}#ws:gamma`,
      names: ['gamma'],
    });
    const rows: KeyRow[] = [{ fingerprint: 'f1', workspace: ACME, names: ['acme'] }];
    expect(planJoin(rows, { url: URL, fingerprint: 'f1', fresh: true })).toEqual({ kind: 'taken', workspace: ACME });
    expect(planJoin(rows, { url: URL, fingerprint: 'f2', fresh: true, name: 'ACME' })).toEqual({
      kind: 'taken',
      workspace: ACME,
    });
  });
});
