// `npm run migrate`: creates the database if missing and applies pending migrations (under the advisory lock).
import { ConfigError, loadConfig } from './config/controller-config.js';
import { StartupError } from './common/startup-error.js';
import { ensureDatabase } from './database/ensure-database.js';
import { migrateLocked } from './database/migrate-locked.js';

try {
  const config = loadConfig({ NODE_ENV: 'development', ...process.env });
  await ensureDatabase(config.databaseUrl);
  const applied = await migrateLocked(config.databaseUrl);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to migrate');
} catch (err) {
  console.error(err instanceof ConfigError || err instanceof StartupError ? err.message : err);
  process.exit(1);
}
