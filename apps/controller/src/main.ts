// Telemetry first: OpenTelemetry must patch http and pg before NestJS, Fastify or pg load,
// so the app is imported dynamically after startTelemetry().
import { startTelemetry } from './telemetry/telemetry.js';

startTelemetry();

const { ConfigError, ControllerConfig } = await import('./config/controller-config.js');
const { StartupError } = await import('./common/startup-error.js');
const { createControllerApp } = await import('./app.factory.js');

try {
  // createControllerApp validates the environment (fails fast on a bad value) and owns the config
  const app = await createControllerApp();
  const { port } = app.get(ControllerConfig);
  app.enableShutdownHooks();
  await app.listen({ port, host: '0.0.0.0' });
  console.log(`recloser controller listening on port ${port}`);
} catch (err) {
  if (err instanceof ConfigError || err instanceof StartupError) {
    console.error(err.message);
  } else {
    console.error('controller failed to start:', err);
  }
  process.exit(1);
}
