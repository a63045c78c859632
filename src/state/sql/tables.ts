/**
 * The ledger's tables, the same in SQLite and PostgreSQL (each engine's migrations create them
 * with its own spelling of a row counter and integer sizes). One row per record, keyed by what
 * the rules ask: workspace + lead, reservation, workflow run, meeting id, trigger. `body` is the
 * whole record as JSON (fields a newer schedctl adds survive a rewrite by this one); the other
 * columns are copies of its fields that the queries look things up by.
 */

/** `seq`: the engine's auto-incrementing row counter (the order attempts and fires were written in). */
export function ledgerTables(seq: string, ms: string): string[] {
  return [
    `CREATE TABLE schedctl_attempts (
       seq ${seq}, id text NOT NULL UNIQUE, workspace text NOT NULL, lead text NOT NULL,
       reservation_id text NOT NULL, execution_id text, meeting_id text, outcome text NOT NULL,
       sent integer NOT NULL, start_ms ${ms}, touched_ms ${ms}, body text NOT NULL)`,
    'CREATE INDEX schedctl_attempts_lead ON schedctl_attempts (workspace, lead)',
    'CREATE INDEX schedctl_attempts_reservation ON schedctl_attempts (workspace, reservation_id)',
    'CREATE INDEX schedctl_attempts_execution ON schedctl_attempts (workspace, execution_id)',
    'CREATE INDEX schedctl_attempts_meeting ON schedctl_attempts (workspace, meeting_id)',
    'CREATE INDEX schedctl_attempts_outcome ON schedctl_attempts (workspace, outcome)',
    `CREATE INDEX schedctl_attempts_prune ON schedctl_attempts (touched_ms) WHERE outcome <> 'booked'`,
    `CREATE TABLE schedctl_meetings (
       workspace text NOT NULL, id text NOT NULL, lead text NOT NULL, start_ms ${ms}, over_ms ${ms},
       status text NOT NULL, trigger_id text, event text NOT NULL, event_id text NOT NULL,
       body text NOT NULL, PRIMARY KEY (workspace, id))`,
    'CREATE INDEX schedctl_meetings_lead ON schedctl_meetings (workspace, lead, over_ms)',
    'CREATE INDEX schedctl_meetings_start ON schedctl_meetings (workspace, start_ms)',
    'CREATE INDEX schedctl_meetings_over ON schedctl_meetings (workspace, over_ms)',
    `CREATE TABLE schedctl_fires (
       seq ${seq}, id text NOT NULL UNIQUE, workspace text NOT NULL, lead text NOT NULL,
       trigger_id text NOT NULL, state text NOT NULL, execution_id text, prepared_ms ${ms},
       body text NOT NULL)`,
    'CREATE INDEX schedctl_fires_lead ON schedctl_fires (workspace, lead, trigger_id)',
    'CREATE INDEX schedctl_fires_execution ON schedctl_fires (workspace, execution_id)',
    'CREATE INDEX schedctl_fires_prepared ON schedctl_fires (prepared_ms)',
    `CREATE TABLE schedctl_outcomes (
       workspace text NOT NULL, trigger_id text NOT NULL, lead text NOT NULL, execution_id text NOT NULL,
       body text NOT NULL, PRIMARY KEY (workspace, trigger_id, lead))`,
    'CREATE INDEX schedctl_outcomes_execution ON schedctl_outcomes (workspace, execution_id)',
    `CREATE TABLE schedctl_event_aliases (
       workspace text NOT NULL, alias text NOT NULL, event_id text NOT NULL, PRIMARY KEY (workspace, alias))`,
  ];
}

/**
 * Which workspace each key belongs to (state/workspaces.ts): one row per key fingerprint at a
 * normalised base URL (never the key), the workspace it joined, and the names it joined by
 * (space-separated, folded: a name is letters, digits, _ . -). Added by a later migration than
 * ledgerTables (SQLite 2, PostgreSQL 4), so kept apart from them: a shipped migration is never
 * edited. `schedctl_ledger_marks` records one-time steps done (the legacy records' attribution).
 */
export function workspaceKeyTables(ms: string): string[] {
  return [
    `CREATE TABLE schedctl_workspace_keys (
       base_url text NOT NULL, fingerprint text NOT NULL, workspace text NOT NULL,
       names text NOT NULL, added_ms ${ms} NOT NULL, PRIMARY KEY (base_url, fingerprint))`,
    'CREATE INDEX schedctl_workspace_keys_workspace ON schedctl_workspace_keys (workspace)',
    `CREATE TABLE schedctl_ledger_marks (mark text PRIMARY KEY, at_ms ${ms} NOT NULL)`,
    // The row joins lock to take turns (workspaces.ts, JOIN_LOCK): an UPDATE locks it in both engines.
    `INSERT INTO schedctl_ledger_marks (mark, at_ms) VALUES ('workspace-joins', 0)`,
  ];
}

/**
 * What the team state kept in a table since its schema 2 and one machine kept in files until
 * SQLite's migration 3: the bulk run logs (one row per record, in the order appended, keyed by the
 * input's content hash and command). (The rate budgets, a cache, have a database of their own on
 * one machine: sqlite/rate-cache.ts.)
 */
export function runTables(seq: string, ms: string): string[] {
  return [
    `CREATE TABLE schedctl_run_records (
       seq ${seq}, log_key text NOT NULL, record text NOT NULL, at_ms ${ms} NOT NULL)`,
    'CREATE INDEX schedctl_run_records_log ON schedctl_run_records (log_key, seq)',
  ];
}
