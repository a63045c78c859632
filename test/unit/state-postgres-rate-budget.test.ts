/**
 * The team state's rate budget draw (state/postgres/rate-budget.ts): one statement, one round
 * trip, applying api/rate-budget.ts's rule where the row is. What it writes must be what the
 * rule computes on what it found, whatever the row held (old draws, a block, a block too far
 * ahead, a full window, a damaged state, no row yet), and draws from several processes at once
 * must never go past the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AHEAD_MS, createRateBudget, MAX_BLOCK_MS, type BudgetState } from '../../src/api/rate-budget.js';
import { openDatabase, type Database } from '../../src/state/postgres/connect.js';
import { pgBudgetStore } from '../../src/state/postgres/rate-budget.js';
import { ensureSchema } from '../../src/state/postgres/schema.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let pg: TestPostgres;
let db: Database;
beforeAll(async () => {
  pg = await startPostgres();
  db = openDatabase(await pg.createDatabase());
  await ensureSchema(db);
}, 60_000);
afterAll(async () => {
  await db?.end();
  await pg?.destroy();
});

const LIMIT = 3;
const WINDOW = 60_000;
const MARGIN = 1000;
let n = 0;
const newId = () => (++n).toString(16).padStart(32, '0');

/** A budget on the team database, counting the round trips its store asks. */
function budget(id: string, database = db) {
  let trips = 0;
  const counted: Database = {
    ...database,
    query: (...a: Parameters<Database['query']>) => (trips++, database.query(...a)),
    step: (...a: Parameters<Database['step']>) => (trips++, database.step(...a)),
  } as Database;
  const store = pgBudgetStore({ db: counted, ready: async () => {}, where: 'test' }, id, Date.now);
  const b = createRateBudget({
    dir: '/nonexistent',
    baseUrl: 'x',
    apiKey: 'y',
    limit: LIMIT,
    windowMs: WINDOW,
    marginMs: MARGIN,
    store,
    sleep: async () => {},
  });
  return { b, trips: () => trips };
}

const dbNow = async () =>
  Math.round(Number((await db.query<{ t: number }>('SELECT extract(epoch from clock_timestamp()) * 1000 AS t'))[0]!.t));
const stored = async (id: string): Promise<BudgetState> =>
  (await db.query<{ state: BudgetState }>('SELECT state FROM schedctl_rate_budgets WHERE budget_id = $1', [id]))[0]!
    .state;
const put = (id: string, state: unknown) =>
  db.query(
    `INSERT INTO schedctl_rate_budgets (budget_id, state) VALUES ($1, $2)
     ON CONFLICT (budget_id) DO UPDATE SET state = EXCLUDED.state`,
    [id, JSON.stringify(state)],
  );

describe('a draw on the team state', () => {
  it('is one round trip, the first of a key anywhere two more (its row made)', async () => {
    const id = newId();
    const { b, trips } = budget(id);
    await b.draw();
    expect(trips()).toBe(3);
    await b.draw();
    expect(trips()).toBe(4);
    expect((await stored(id)).sent).toHaveLength(2);
  });

  it('drops draws older than the window and a block that has passed, and adds its own at the database instant', async () => {
    const id = newId();
    const t = await dbNow();
    await put(id, { sent: [t - WINDOW - MARGIN - 5000, t - 10_000, t - 20_000], blockedUntil: t - 1 });
    const drawn = await budget(id).b.draw();
    expect(Math.abs(drawn - t)).toBeLessThan(5000);
    // Sorted, the old one gone, no block left.
    expect(await stored(id)).toEqual({ sent: [t - 20_000, t - 10_000, drawn] });
  });

  it('does not draw while blocked; a block past MAX_BLOCK_MS is cut back to it', async () => {
    const id = newId();
    const t = await dbNow();
    await put(id, { sent: [], blockedUntil: t + 10 * MAX_BLOCK_MS });
    await expect(budget(id).b.draw({ maxWaitMs: 0 })).rejects.toThrow(/rate budget for this key is spent/);
    const s = await stored(id);
    expect(s.sent).toEqual([]);
    expect(s.blockedUntil).toBeGreaterThan(t);
    expect(s.blockedUntil!).toBeLessThanOrEqual(t + MAX_BLOCK_MS + 5000);
  });

  it('does not draw when the window is full, and says how long to wait', async () => {
    const id = newId();
    const t = await dbNow();
    await put(id, { sent: [t - 3000, t - 2000, t - 1000] });
    const waits: number[] = [];
    await expect(budget(id).b.draw({ maxWaitMs: 0, onWait: (ms) => waits.push(ms) })).rejects.toThrow(/spent for/);
    expect((await stored(id)).sent).toEqual([t - 3000, t - 2000, t - 1000]);
  });

  it('reads a damaged state as empty (a cache), as the rule does, and writes a sound one', async () => {
    for (const damaged of [{ sent: 'nope' }, { sent: [1, 'x'] }, 'text', null, { sent: [1], blockedUntil: 'soon' }]) {
      const id = newId();
      await put(id, damaged);
      await budget(id).b.draw();
      const s = await stored(id);
      // { sent: [1], blockedUntil: 'soon' }: the old draw (epoch 1 ms) is outside the window, the bad block dropped.
      expect(s).toEqual({ sent: [expect.any(Number)] });
    }
  });

  it('never goes past the limit when processes draw at once', async () => {
    const id = newId();
    const others = [
      openDatabase(pg.databaseUrl(db.where.split('/').pop()!)),
      openDatabase(pg.databaseUrl(db.where.split('/').pop()!)),
    ];
    const budgets = [budget(id), budget(id, others[0]), budget(id, others[1])];
    const results = await Promise.allSettled(
      budgets.flatMap(({ b }) => [b.draw({ maxWaitMs: 0 }), b.draw({ maxWaitMs: 0 })]),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LIMIT);
    expect((await stored(id)).sent).toHaveLength(LIMIT);
    await Promise.all(others.map((o) => o.end()));
  });

  it('draws a batch (drawAhead) in one round trip: the spares stamped AHEAD_MS later, no more than there is room for', async () => {
    const id = newId();
    const { b, trips } = budget(id);
    await b.draw();
    const before = trips();
    b.drawAhead(4);
    const t = await b.draw();
    expect(trips()).toBe(before + 1);
    // Room for 2 of the 4 (LIMIT 3, one drawn): the one asked for at t, one spare AHEAD_MS after it.
    const { sent } = await stored(id);
    expect(sent).toHaveLength(LIMIT);
    expect(sent.filter((s) => s === t + AHEAD_MS)).toHaveLength(1);
    expect(await b.draw()).toBe(t);
    expect(trips()).toBe(before + 1);
    // The spare used, the window full: the next draw asks the database, and finds no room.
    await expect(b.draw({ maxWaitMs: 0 })).rejects.toThrow(/spent/);
    expect(trips()).toBe(before + 2);
  });

  it("a 429's block and a wait for room still read and write the row (in a transaction)", async () => {
    const id = newId();
    const { b } = budget(id);
    await b.recordRetryAfter(30);
    const s = await stored(id);
    expect(s.blockedUntil).toBeGreaterThan(await dbNow());
    await expect(budget(id).b.waitForRoom(1, { maxWaitMs: 0 })).rejects.toThrow(/spent for (2\d|30) s/);
    expect(await budget(newId()).b.waitForRoom(1)).toBe(0);
  });
});
