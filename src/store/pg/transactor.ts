// What of the PostgreSQL store its tables' helpers use: one transaction on one of its connections
// (PgStore.transaction), so that they need not import the store that uses them.
import type pg from 'pg';

export interface Transactor {
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}
