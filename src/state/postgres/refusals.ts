/**
 * What the team database refused, and what to do, a line each: not "check that it is up". Each
 * names the right to grant (to whom) or the setting to change: the reader must say what to ask
 * for. Pure: the SQLSTATE (or errno, for a file the URL names) and message decide.
 */

const NEEDS = 'docs/team-state.md#what-the-database-user-needs';

/** The hint for a refusal, or undefined when the error is not one this module knows. */
export function refusalHint(error: unknown, role: string): string | undefined {
  const e = error as { code?: unknown; message?: unknown; path?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === '42501') {
    // pg_terminate_backend of another role's session (state unlock).
    if (/terminate|signal/i.test(message))
      return `${role} may not end another role's session: a superuser can run GRANT pg_signal_backend TO ${role}, or run state unlock as the role holding the lock or a superuser (${NEEDS})`;
    if (/schema/i.test(message))
      return `${role} may not create schedctl's tables here: have the database's owner run GRANT CREATE ON SCHEMA public TO ${role} (or run schedctl once as the owner, which makes them) (${NEEDS})`;
    return `${role} lacks rights on schedctl's tables: have their owner run GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role} and GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role} (${NEEDS})`;
  }
  if (code === '25006')
    return `the database, or ${role}'s sessions, are read-only (default_transaction_read_only, or a standby): point the state URL at the primary, or have an administrator run ALTER ROLE ${role} SET default_transaction_read_only = off`;
  if (code === '42P06' || code === '3D000')
    return 'the database named in the state URL does not exist: create it (createdb --owner <role> <name>), or fix the URL';
  if (/does not support SSL/i.test(message))
    return 'the server takes no TLS connections: have it set up for TLS (ssl = on), or set sslmode=disable in the state URL if the network to it is trusted';
  if ((code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') && typeof e?.path === 'string')
    return `fix the path of sslrootcert, sslcert or sslkey in the state URL (a file this user can read), or leave it out for the system's trusted certificates`;
  return undefined;
}

/** A TLS file the URL names and node-postgres could not read: the reason, naming the file. */
export function tlsFileReason(error: unknown): string | undefined {
  const e = error as { code?: unknown; path?: unknown } | null;
  if (typeof e?.path !== 'string' || typeof e.code !== 'string') return undefined;
  const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'not readable by this user' : e.code;
  return `the TLS file ${e.path} named in the state URL cannot be read: ${why}`;
}
