// @recloser/sidecar: the proxy as a library (the recloser-sidecar command is dist/main.js).
export { Sidecar } from './Sidecar.js';
export type { SidecarOptions } from './Sidecar.js';
export { ConfigError, HELP, loadConfig } from './config.js';
export type { SidecarConfig, UpstreamConfig } from './config.js';
