import { migrations } from '@recloser/migrations';
import type { DataSourceOptions } from 'typeorm';

/** One place that says how the controller talks to Postgres; used by Nest, the migrate script and tests. */
export function dataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    synchronize: false,
    migrationsRun: false,
    migrations,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    extra: { connectionTimeoutMillis: 5000, max: 20 },
  };
}
