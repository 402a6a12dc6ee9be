/*
 * A small MCP server over stdio for the tests of @forge/mcp. Plain JavaScript so node runs it
 * straight from a checkout, without a build step.
 *
 * Flags change how it starts:
 *   --hang-on-start          never answer `initialize` (a start-up timeout)
 *   --fail-on-start=MESSAGE  print MESSAGE on stderr and exit with code 3 before answering
 *   --alias=NAME             also offer `echo` under NAME (names with dots, spaces, collisions)
 *   --output-schema          offer `typed`, whose result must match an output schema
 *   --huge-schema            also offer `huge`, whose input schema is over 1 MB
 *
 * `add_tool` registers a tool while the server runs, which sends `notifications/tools/list_changed`.
 */
const flags = process.argv.slice(2);
const flagValue = (name) => flags.find((flag) => flag.startsWith(`${name}=`))?.slice(name.length + 1);

/* The client closing our stdin means the session is over: exit even if a slow call is pending. */
process.stdin.on('end', () => process.exit(0));

const failure = flagValue('--fail-on-start');
if (failure !== undefined) {
  process.stderr.write(`${failure}\n`);
  process.exit(3);
}
if (flags.includes('--hang-on-start')) {
  process.stdin.resume();
  setInterval(() => {}, 60_000);
} else {
  await serve();
}

/* Imported only when serving, so the start-up failure modes fail fast. */
async function serve() {
  const [{ McpServer }, { StdioServerTransport }, { z }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('zod'),
  ]);
  const server = new McpServer({ name: 'forge-test-server', version: '1.0.0' });
  const stats = { calls: 0, cancelled: 0, completedSlow: 0 };
  const counted = (handler) => async (input, extra) => {
    stats.calls += 1;
    return handler(input, extra);
  };
  const tools = { server, z, stats, counted };
  registerEchoTools(tools);
  registerBehaviourTools(tools);
  registerContentTools(tools);
  registerChangingTools(tools);
  server.registerTool(
    'stats',
    { description: 'Counts calls received (not counting this one) and cancellations.', inputSchema: {} },
    async () => text(JSON.stringify(stats)),
  );
  await server.connect(new StdioServerTransport());
}

function text(value) {
  return { content: [{ type: 'text', text: value }] };
}

/* `echo`, and its aliases from `--alias=NAME`. */
function registerEchoTools({ server, z, counted }) {
  const echo = counted(async ({ text: value }) => text(`echo: ${value}`));
  server.registerTool('echo', { description: 'Returns its text.', inputSchema: { text: z.string() } }, echo);
  for (const alias of flags
    .filter((flag) => flag.startsWith('--alias='))
    .map((flag) => flag.slice('--alias='.length))) {
    server.registerTool(
      alias,
      { description: `Alias of echo named ${alias}.`, inputSchema: { text: z.string() } },
      echo,
    );
  }
}

/* Tools that compute, wait until cancelled, report an error or crash the server. */
function registerBehaviourTools({ server, z, stats, counted }) {
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    counted(async ({ a, b }) => text(String(a + b))),
  );

  server.registerTool(
    'slow',
    {
      description: 'Waits the given milliseconds, or until the call is cancelled.',
      inputSchema: { ms: z.number().int().min(0) },
    },
    counted(
      ({ ms }, extra) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => {
            stats.completedSlow += 1;
            resolve(text(`slept ${ms} ms`));
          }, ms);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            stats.cancelled += 1;
            resolve(text('cancelled'));
          });
        }),
    ),
  );

  server.registerTool(
    'fail',
    { description: 'Reports a tool error with the given message.', inputSchema: { message: z.string() } },
    counted(async ({ message }) => ({ isError: true, content: [{ type: 'text', text: message }] })),
  );

  server.registerTool(
    'crash',
    { description: 'Exits the server process while the call is running.', inputSchema: {} },
    counted(async () => {
      process.stderr.write('test server: crashing on purpose\n');
      process.exit(7);
    }),
  );
}

/* Tools whose results are mixed content, long text or structured content (`--output-schema`). */
function registerContentTools({ server, z, counted }) {
  server.registerTool(
    'media',
    {
      description: 'Returns text, an image, an embedded text resource, a binary resource and a link.',
      inputSchema: {},
    },
    counted(async () => ({
      content: [
        { type: 'text', text: 'here is a picture' },
        { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'note body' } },
        {
          type: 'resource',
          resource: {
            uri: 'file:///blob.bin',
            mimeType: 'application/octet-stream',
            blob: Buffer.from([1, 2, 3, 4]).toString('base64'),
          },
        },
        { type: 'resource_link', uri: 'file:///linked.md', name: 'linked' },
      ],
    })),
  );

  server.registerTool(
    'big',
    { description: 'Returns a text of the given length.', inputSchema: { chars: z.number().int().min(0) } },
    counted(async ({ chars }) => text('x'.repeat(chars))),
  );

  if (flags.includes('--huge-schema')) {
    const fields = Object.fromEntries(
      Array.from({ length: 2000 }, (_, index) => [`field_${index}`, z.string().describe('d'.repeat(500))]),
    );
    server.registerTool(
      'huge',
      { description: 'A tool with a very large input schema.', inputSchema: fields },
      async () => text('huge'),
    );
  }

  if (flags.includes('--output-schema')) {
    server.registerTool(
      'typed',
      { description: 'Returns structured content only.', inputSchema: {}, outputSchema: { total: z.number() } },
      counted(async () => ({ content: [], structuredContent: { total: 42 } })),
    );
  }
}

/* `add_tool` registers a tool while the server runs, which sends `notifications/tools/list_changed`. */
function registerChangingTools({ server, z, counted }) {
  server.registerTool(
    'add_tool',
    {
      description: 'Offers one more tool, named by the input; the server then tells the client its tools changed.',
      inputSchema: { name: z.string() },
    },
    counted(async ({ name }) => {
      server.registerTool(
        name,
        {
          description: `Added while the server ran: ${name}. Returns its note.`,
          inputSchema: { note: z.string().describe('Any text; it is returned after the name of the tool.') },
        },
        async ({ note }) => text(`${name}: ${note}`),
      );
      return text(`added ${name}`);
    }),
  );
}
