import type { ControlEvent } from '@recloser/control';
import { describe, expect, it } from 'vitest';
import { describeEvent, webhookEventOf } from './webhook-events.js';

const transition = (from: string, to: string, extra: Record<string, unknown> = {}): ControlEvent => ({
  id: 'e',
  seq: 1,
  type: 'breaker.transition',
  breakerId: 'b',
  at: 0,
  data: {
    group: 'g',
    dependency: 'd',
    region: null,
    from,
    to,
    fromStep: null,
    step: null,
    actor: 'quorum',
    reason: 'r',
    ...extra,
  },
});

describe('webhookEventOf', () => {
  it('names each transition by its target state and, within RAMPING, the direction of the step', () => {
    expect(webhookEventOf(transition('closed', 'open'))).toBe('breaker.opened');
    expect(webhookEventOf(transition('probing', 'open', { actor: 'probe' }))).toBe('breaker.opened');
    expect(webhookEventOf(transition('open', 'probing', { actor: 'cooldown' }))).toBe('breaker.probing');
    expect(webhookEventOf(transition('probing', 'ramping', { step: 0 }))).toBe('breaker.ramp_step');
    expect(webhookEventOf(transition('ramping', 'ramping', { fromStep: 1, step: 2 }))).toBe(
      'breaker.ramp_step',
    );
    expect(webhookEventOf(transition('ramping', 'ramping', { fromStep: 2, step: 2 }))).toBe(
      'breaker.ramp_held',
    );
    expect(webhookEventOf(transition('ramping', 'ramping', { fromStep: 2, step: 1 }))).toBe(
      'breaker.ramp_stepped_back',
    );
    expect(webhookEventOf(transition('ramping', 'closed', { actor: 'ramp', fromStep: 5 }))).toBe(
      'breaker.recovered',
    );
  });

  it('an operator transition is breaker.forced, whatever it did', () => {
    expect(webhookEventOf(transition('open', 'closed', { actor: 'operator' }))).toBe('breaker.forced');
    expect(webhookEventOf(transition('closed', 'open', { actor: 'operator' }))).toBe('breaker.forced');
  });

  it('passes the watches through and ignores probe bookkeeping', () => {
    const of = (type: ControlEvent['type']) =>
      webhookEventOf({ ...transition('closed', 'open'), type, data: {} });
    expect(of('instance.isolated')).toBe('instance.isolated');
    expect(of('instance.recovered')).toBe('instance.recovered');
    expect(of('quorum.near')).toBe('quorum.near');
    expect(of('quorum.clear')).toBeNull();
    expect(of('probe.granted')).toBeNull();
    expect(of('probe.denied')).toBeNull();
  });

  it('describes an event in one line naming the breaker', () => {
    expect(describeEvent('breaker.opened', transition('closed', 'open'))).toBe(
      'Recloser: g/d closed → open [breaker.opened]: r',
    );
  });
});
