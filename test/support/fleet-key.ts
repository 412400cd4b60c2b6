import type { TestApp } from './test-app.js';

/** Creates a fleet key through the admin API; returns the plaintext key (shown once) and its id. */
export async function createFleetKey(
  app: TestApp,
  groups: string[],
  name = 'test',
): Promise<{ id: string; key: string }> {
  const res = await app.admin('POST', '/v1/admin/fleet-keys', { name, groups });
  if (res.status !== 201) throw new Error(`fleet key: ${res.status} ${res.text}`);
  return res.body as { id: string; key: string };
}
