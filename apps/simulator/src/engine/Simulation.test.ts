import { describe, expect, it } from 'vitest';
import { Simulation } from './Simulation.js';

describe('Simulation', () => {
  it('moves the clock to each event and stops before the horizon', async () => {
    const sim = new Simulation(1);
    const seen: number[] = [];
    sim.at(5, () => seen.push(sim.now()));
    sim.at(2, () => sim.after(10, () => seen.push(sim.now())));
    sim.at(100, () => seen.push(sim.now()));
    await sim.run(50);
    expect(seen).toEqual([5, 12]);
    expect(sim.now()).toBe(50);
  });

  it('waits for tracked promises before time moves on', async () => {
    const sim = new Simulation(1);
    const order: string[] = [];
    sim.at(1, () =>
      sim.track(
        Promise.resolve()
          .then(() => Promise.resolve())
          .then(() => order.push(`async done at ${sim.now()}`)),
      ),
    );
    sim.at(2, () => order.push(`next event at ${sim.now()}`));
    await sim.run(10);
    expect(order).toEqual(['async done at 1', 'next event at 2']);
  });

  it('runs periodic work until the end time', async () => {
    const sim = new Simulation(1);
    const ticks: number[] = [];
    sim.every(1000, 500, 3600, () => ticks.push(sim.now()));
    await sim.run(10_000);
    expect(ticks).toEqual([500, 1500, 2500, 3500]);
  });
});
