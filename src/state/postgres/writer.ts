/**
 * Which schedctl wrote the team database's schema: `schedctl_meta`'s `writer` row, set by the
 * schedctl that made or migrated it. An older schedctl refusing that schema can then say which
 * version to install, not only "the latest" (a team pins versions; the latest may be newer
 * than the one its other machines run). Kept beside schema.ts, not in it: the schema's
 * migrations stay what they are, and a schema made before this row existed simply has none.
 */
import { VERSION } from '../../version.js';
import type { Database } from './connect.js';
import { schemaVersion, type SchemaTooNewError } from './schema.js';

/** The schema's version before ensureSchema (given to it: asked once). */
export async function versionBefore(db: Database): Promise<number | undefined> {
  return schemaVersion(db);
}

/** Says in the schema which schedctl made or migrated it (only then: a write per command would cost a round trip). */
export async function recordWriter(db: Database): Promise<void> {
  await db.query(
    `INSERT INTO schedctl_meta (key, value) VALUES ('writer', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [`schedctl ${VERSION}`],
  );
}

/** The refusal's hint: the version that wrote the newer schema, when it said so. */
export async function tooNewHint(db: Database, error: SchemaTooNewError): Promise<string> {
  const writer = await db
    .query<{ value: string }>(`SELECT value FROM schedctl_meta WHERE key = 'writer'`)
    .then((rows) => /^schedctl ([0-9A-Za-z.+-]{1,40})$/.exec(rows[0]?.value ?? '')?.[1])
    .catch(() => undefined);
  const install = writer ? `schedctl@${writer}` : 'schedctl@latest';
  return `this schedctl (${VERSION}) knows schema ${error.known} and never writes into a newer one: upgrade it to the version that wrote schema ${error.found}${writer ? `, schedctl ${writer}` : ''}, or newer (npm install -g ${install})`;
}
