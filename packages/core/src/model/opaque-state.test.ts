import { describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import type { ModelRequest } from './adapter.js';
import { opaqueStateOf, withoutReplacedHistory } from './opaque-state.js';

const user = (content: string): Message => ({ role: 'user', content });
const compacted = [user('one'), user('two')];
const state = opaqueStateOf({
  provider: 'openai',
  modelId: 'gpt-test',
  items: [{ type: 'compaction', id: 'c1' }],
  compacted,
  previous: undefined,
});
const request = (history: readonly Message[]): ModelRequest => ({
  instructions: '',
  history,
  currentRequest: { role: 'user', content: 'now' },
  continuation: [],
  tools: [],
});

describe('withoutReplacedHistory', () => {
  it('drops the messages the state was made from when the history starts with them', () => {
    expect(withoutReplacedHistory(request([...compacted, user('three')]), state).history).toEqual([user('three')]);
  });

  it('leaves a history alone that does not start with exactly those messages', () => {
    const tailOnly = request([user('three')]);
    expect(withoutReplacedHistory(tailOnly, state)).toBe(tailOnly);
    const edited = request([user('one'), user('TWO'), user('three')]);
    expect(withoutReplacedHistory(edited, state)).toBe(edited);
  });
});
