import assert from 'node:assert/strict';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';

// A local server that speaks the Responses API and Chat Completions; each reply is scripted.
const server = await startLoopbackProvider();
try {
  server.enqueue(turn({ text: ['Hello ', 'from the loopback provider.'] }));
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer example-key' },
    body: JSON.stringify({ model: 'any-model', stream: true, messages: [{ role: 'user', content: 'Say hello.' }] }),
  });
  // The reply streams as server-sent events, one delta per scripted piece.
  const events = await response.text();
  assert.match(events, /"content":"Hello "/);
  assert.match(events, /"content":"from the loopback provider."/);
  // Every request is recorded: headers, raw body and parsed body.
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0]?.headers['authorization'], 'Bearer example-key');
} finally {
  await server.close();
}
