import { describe, expect, it } from 'vitest';
import { InterruptPolicy } from './interrupt-policy.js';

const idle = { running: false, hasInput: false };

describe('InterruptPolicy', () => {
  it('cancels a running turn every time, never exiting', () => {
    const policy = new InterruptPolicy();
    expect(policy.decide({ running: true, hasInput: false })).toBe('cancel-run');
    expect(policy.decide({ running: true, hasInput: false })).toBe('cancel-run');
    expect(policy.decide(idle)).toBe('warn');
  });

  it('warns first and exits on the second Ctrl-C at an empty prompt', () => {
    const policy = new InterruptPolicy();
    expect(policy.decide(idle)).toBe('warn');
    expect(policy.decide(idle)).toBe('exit');
  });

  it('discards typed input before arming the exit', () => {
    const policy = new InterruptPolicy();
    expect(policy.decide({ running: false, hasInput: true })).toBe('clear-input');
    expect(policy.decide(idle)).toBe('warn');
  });

  it('is disarmed by reset', () => {
    const policy = new InterruptPolicy();
    policy.decide(idle);
    policy.reset();
    expect(policy.decide(idle)).toBe('warn');
  });
});
