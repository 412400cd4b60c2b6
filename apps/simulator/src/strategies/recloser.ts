// placeholder until the SDK lands (replaced below)
import type { Strategy } from './Strategy.js';
export const recloser: Strategy = {
  name: 'recloser',
  needs: 'the SDK (libs/client) — not landed yet',
  build: () => {
    throw new Error('not yet');
  },
};
