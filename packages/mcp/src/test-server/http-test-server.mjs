/*
 * A Streamable HTTP MCP server for the tests of remote servers, built from the official SDK's
 * server parts. Plain JavaScript so node runs it straight from a checkout.
 *
 *   --port=N             listen on 127.0.0.1:N (default: a free port); prints "listening on <url>"
 *   --oauth              protect /mcp with the SDK's bearer-auth middleware, and serve an OAuth
 *                        authorization server (the SDK's auth router) on the same port; /authorize
 *                        approves at once and redirects with a code, as a user who clicks "allow"
 *   --token-seconds=N    lifetime of the access tokens it issues (default 3600); refresh tokens work
 *   --retry=MS           the SSE `retry` it announces before cutting a stream (default 400)
 *
 * Tools: `echo`; `slow` (waits, or logs that the client cancelled it); `cut_stream`, which closes its response stream mid-call and answers after the
 * client has reconnected with Last-Event-ID; `ask`, which asks the user for input (elicitation)
 * with defaults in its schema and returns what came back. It prints one line per notable event
 * ("resumed with Last-Event-ID …", "authorization: …") for the tests to read.
 */
import { randomUUID } from 'node:crypto';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { z } from 'zod';

const flags = process.argv.slice(2);
const flagValue = (name) => flags.find((flag) => flag.startsWith(`${name}=`))?.slice(name.length + 1);
const oauth = flags.includes('--oauth');
const tokenSeconds = Number(flagValue('--token-seconds') ?? 3600);
const retry = Number(flagValue('--retry') ?? 400);
const log = (line) => process.stdout.write(`${line}\n`);

/** Events of every stream, kept so a client that reconnects with Last-Event-ID gets what it missed. */
class MemoryEventStore {
  events = [];
  async storeEvent(streamId, message) {
    const id = `${streamId}_${this.events.length}`;
    this.events.push({ id, streamId, message });
    return id;
  }
  async getStreamIdForEventId(eventId) {
    return this.events.find((event) => event.id === eventId)?.streamId;
  }
  async replayEventsAfter(lastEventId, { send }) {
    const start = this.events.findIndex((event) => event.id === lastEventId);
    if (start === -1) return '';
    const { streamId } = this.events[start];
    for (const event of this.events.slice(start + 1))
      if (event.streamId === streamId && Object.keys(event.message).length > 0) await send(event.id, event.message);
    return streamId;
  }
}

/** An authorization server that approves every request at once: codes, access and refresh tokens in memory. */
function createAuthProvider() {
  const clients = new Map();
  const codes = new Map();
  const tokens = new Map();
  const issue = (clientId, resource) => {
    const access = `access-${randomUUID()}`;
    const refresh = `refresh-${randomUUID()}`;
    tokens.set(access, { clientId, resource, expiresAt: Date.now() + tokenSeconds * 1000, kind: 'access' });
    tokens.set(refresh, { clientId, resource, kind: 'refresh' });
    return { access_token: access, token_type: 'bearer', expires_in: tokenSeconds, refresh_token: refresh };
  };
  return {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => {
        clients.set(client.client_id, client);
        log(`registered client ${client.client_id}`);
        return client;
      },
    },
    async authorize(client, params, res) {
      const code = randomUUID();
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.toString());
    },
    async challengeForAuthorizationCode(_client, code) {
      return codes.get(code).params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (entry === undefined || entry.client.client_id !== client.client_id) throw new Error('unknown code');
      codes.delete(code);
      log('authorization: code exchanged');
      return issue(client.client_id, entry.params.resource);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const entry = tokens.get(refreshToken);
      if (entry?.kind !== 'refresh' || entry.clientId !== client.client_id) throw new Error('unknown refresh token');
      tokens.delete(refreshToken);
      log('authorization: token refreshed');
      return issue(client.client_id, entry.resource);
    },
    async verifyAccessToken(token) {
      const entry = tokens.get(token);
      if (entry?.kind !== 'access' || entry.expiresAt < Date.now()) throw new Error('invalid or expired token');
      return { token, clientId: entry.clientId, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000) };
    },
  };
}

function createServer() {
  const server = new McpServer({ name: 'forge-http-test-server', version: '1.0.0' }, { capabilities: { logging: {} } });
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  server.registerTool(
    'echo',
    { description: 'Returns its text.', inputSchema: { text: z.string() } },
    async ({ text: value }) => text(`echo: ${value}`),
  );
  server.registerTool(
    'slow',
    { description: 'Waits the given milliseconds, or until the call is cancelled.', inputSchema: { ms: z.number() } },
    (input, extra) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(text(`slept ${input.ms} ms`)), input.ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log('call cancelled by the client');
          resolve(text('cancelled'));
        });
      }),
  );
  server.registerTool(
    'cut_stream',
    { description: 'Cuts its response stream mid-call, then answers once the client is back.', inputSchema: {} },
    async (_input, extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'before the cut' },
      });
      extra.closeSSEStream?.();
      log(`cut the stream at ${Date.now()}`);
      await new Promise((resolve) => setTimeout(resolve, retry + 300));
      return text('finished after the stream was cut');
    },
  );
  server.registerTool(
    'ask',
    { description: 'Asks the user for a name and a colour.', inputSchema: {} },
    async (_input, extra) => {
      const answer = await extra.sendRequest(
        {
          method: 'elicitation/create',
          params: {
            message: 'Which name and colour should the report use?',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', title: 'Name', default: 'Ada' },
                colour: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'], default: 'green' },
                copies: { type: 'integer', title: 'Copies', default: 2 },
                urgent: { type: 'boolean', title: 'Urgent', default: false },
              },
            },
          },
        },
        z.object({ action: z.string(), content: z.record(z.string(), z.unknown()).optional() }).passthrough(),
      );
      return text(JSON.stringify(answer));
    },
  );
  return server;
}

const app = createMcpExpressApp({ host: '127.0.0.1' });
const port = Number(flagValue('--port') ?? 0);
const listener = app.listen(port, '127.0.0.1', () => {
  const address = `http://127.0.0.1:${listener.address().port}`;
  setUp(address);
  log(`listening on ${address}/mcp`);
});

function setUp(address) {
  const mcpUrl = new URL(`${address}/mcp`);
  const guards = [];
  if (oauth) {
    const provider = createAuthProvider();
    app.use(mcpAuthRouter({ provider, issuerUrl: new URL(address), resourceServerUrl: mcpUrl }));
    guards.push(
      requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    );
  }
  const transports = new Map();
  app.all('/mcp', ...guards, async (req, res) => {
    const lastEventId = req.headers['last-event-id'];
    if (req.method === 'GET' && typeof lastEventId === 'string')
      log(`resumed with Last-Event-ID ${lastEventId} at ${Date.now()}`);
    if (oauth) log(`authorization: request with a bearer token`);
    if (req.method === 'POST' && req.body?.method === 'initialize')
      log(`initialize from ${JSON.stringify(req.body.params.clientInfo)} protocol ${req.body.params.protocolVersion}`);
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (req.method !== 'POST' || typeof sessionId === 'string') {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new MemoryEventStore(),
        retryInterval: retry,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId !== undefined && transports.delete(transport.sessionId);
      await createServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
}
