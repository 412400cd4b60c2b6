// @recloser/nestjs: the Recloser SDK as a NestJS module for worker apps.
export { RecloserModule, RecloserShutdown, DEFAULT_SHUTDOWN_GRACE_MS } from './RecloserModule.js';
export type {
  BreakerDeclarations,
  RecloserModuleAsyncOptions,
  RecloserModuleOptions,
} from './RecloserModule.js';
export { breakerToken, InjectBreaker, InjectRecloser, RECLOSER_MODULE_OPTIONS } from './tokens.js';
