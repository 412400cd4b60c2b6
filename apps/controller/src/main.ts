// Telemetry first: OpenTelemetry must patch http and pg before NestJS, Fastify or pg load,
// so the app is imported dynamically after startTelemetry().
import { startTelemetry } from './telemetry/telemetry.js';

startTelemetry();

const { ConfigError } = await import('./config/controller-config.js');
const { StartupError } = await import('./common/startup-error.js');
const { createControllerApp } = await import('./app.factory.js');
const { loadConfig } = await import('./config/controller-config.js');

try {
  const config = loadConfig();
  const app = await createControllerApp();
  app.enableShutdownHooks();
  await app.listen({ port: config.port, host: '0.0.0.0' });
  console.log(`recloser controller listening on port ${config.port}`);
} catch (err) {
  if (err instanceof ConfigError || err instanceof StartupError) {
    console.error(err.message);
  } else {
    console.error('controller failed to start:', err);
  }
  process.exit(1);
}
