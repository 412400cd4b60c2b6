import { createMemoryControlPlane } from '@recloser/control';
import { mathRng, mergePool, wallClock } from '@recloser/core';
import { CONTRACT_SETTINGS, portContract } from './support/port-contract.js';

portContract('in memory (the simulator)', async () => {
  const control = createMemoryControlPlane({ ...CONTRACT_SETTINGS, clock: wallClock, rng: mathRng });
  const { plane: _plane, events, ...stores } = control;
  return {
    ports: { ...stores, events, clock: wallClock, rng: mathRng },
    settings: CONTRACT_SETTINGS,
    async putPool(id, body) {
      control.pools.put({ ...mergePool(body), id });
    },
    seen: () => events.events,
    async close() {},
  };
});
