import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { ForgeError } from '@forge/core';
import type { McpRemoteServerConfig } from './config.js';
import type { McpCredentialFiles } from './credential-files.js';
import { createOAuthProvider } from './oauth-provider.js';

/** How long `forge mcp login` waits for the browser to come back unless told otherwise. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const CALLBACK_PATH = '/callback';

/** A login that could not be completed; the message says why and what to do. */
export class McpLoginError extends ForgeError {
  static override readonly errorCode = 'mcp_login';

  constructor(message: string, cause?: unknown) {
    super({ code: McpLoginError.errorCode, message, isRetryable: false, cause });
    this.name = 'McpLoginError';
  }
}

export interface LoginOptions {
  readonly config: McpRemoteServerConfig;
  readonly files: McpCredentialFiles;
  /** Shows (prints, and may open) the address the user signs in at. */
  readonly openAuthorizationUrl: (url: URL) => void;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

interface Callback {
  readonly server: Server;
  readonly redirectUrl: string;
  readonly received: Promise<URLSearchParams>;
}

const PAGE = (words: string) => `<!doctype html><meta charset="utf-8"><title>Forge</title><p>${words}</p>`;

/** Listens on 127.0.0.1 for the authorization server's redirect; `received` settles with its query. */
async function listenForCallback(port: number): Promise<Callback> {
  let deliver: (query: URLSearchParams) => void = () => {};
  const received = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      response.writeHead(404, { 'content-type': 'text/html' }).end(PAGE('Not found.'));
      return;
    }
    const failed = url.searchParams.has('error');
    response
      .writeHead(failed ? 400 : 200, { 'content-type': 'text/html' })
      .end(
        PAGE(
          failed
            ? 'The login was refused; see the terminal.'
            : 'Signed in. You can close this tab and return to Forge.',
        ),
      );
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, redirectUrl: `http://127.0.0.1:${bound}${CALLBACK_PATH}`, received };
}

function portOf(url: string | undefined): number | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const port = Number(new URL(url).port);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  server: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new McpLoginError(
            `The login to MCP server "${server}" was not completed within ${Math.round(timeoutMs / 1000)} s; run \`forge mcp login ${server}\` again.`,
          ),
        ),
      timeoutMs,
    );
    const abort = () => reject(new McpLoginError(`The login to MCP server "${server}" was cancelled.`));
    signal?.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    });
  });
}

/**
 * Signs in to a remote server with the SDK's OAuth authorization-code flow (PKCE, dynamic client
 * registration unless `oauth.clientId` is configured): shows the authorization address, receives
 * the code on a loopback redirect, exchanges it and stores the tokens in the server's credential
 * file (0600). Returns that file.
 */
export async function loginToMcpServer(options: LoginOptions): Promise<string> {
  const { config, files } = options;
  const stored = await files.load(config.name, config.url);
  const registered = stored?.clientInformation as { redirect_uris?: unknown } | undefined;
  const registeredUrl = Array.isArray(registered?.redirect_uris) ? String(registered.redirect_uris[0]) : undefined;
  const wanted = config.oauth?.redirectPort ?? portOf(registeredUrl) ?? 0;
  const callback = await listenForCallback(wanted).catch(() => listenForCallback(config.oauth?.redirectPort ?? 0));
  try {
    const provider = await createOAuthProvider({
      config,
      files,
      login: { redirectUrl: callback.redirectUrl, openAuthorizationUrl: options.openAuthorizationUrl },
    });
    await provider.forgetTokens();
    if (registeredUrl !== undefined && registeredUrl !== callback.redirectUrl)
      await provider.invalidateCredentials?.('client');
    const first = await auth(provider, {
      serverUrl: config.url,
      ...(config.oauth?.scopes === undefined ? {} : { scope: config.oauth.scopes.join(' ') }),
    });
    if (first === 'AUTHORIZED') return files.fileOf(config.name);
    const query = await withDeadline(
      callback.received,
      options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
      options.signal,
      config.name,
    );
    const refused = query.get('error');
    if (refused !== null) {
      const detail = query.get('error_description');
      throw new McpLoginError(
        `MCP server "${config.name}": the authorization server refused the login (${refused}${detail === null ? '' : `: ${detail}`}).`,
      );
    }
    if (query.get('state') !== provider.expectedState)
      throw new McpLoginError(
        `MCP server "${config.name}": the login redirect carried the wrong state; run \`forge mcp login ${config.name}\` again.`,
      );
    const code = query.get('code');
    if (code === null)
      throw new McpLoginError(`MCP server "${config.name}": the login redirect carried no authorization code.`);
    const second = await auth(provider, { serverUrl: config.url, authorizationCode: code });
    if (second !== 'AUTHORIZED')
      throw new McpLoginError(`MCP server "${config.name}": the authorization code was not accepted.`);
    return files.fileOf(config.name);
  } catch (error) {
    if (McpLoginError.isInstance(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpLoginError(`The login to MCP server "${config.name}" at ${config.url} failed: ${reason}`, error);
  } finally {
    callback.server.closeAllConnections();
    callback.server.close();
  }
}
