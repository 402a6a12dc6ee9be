import { randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { ForgeError } from '@forge/core';
import type { McpRemoteServerConfig } from './config.js';
import type { McpCredentialFiles, StoredCredentials } from './credential-files.js';

/** An access token this close to its expiry is refreshed before the server is connected. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;
/** The redirect address used when no login has chosen one (it is only sent during `forge mcp login`). */
const DEFAULT_REDIRECT_URL = 'http://127.0.0.1/callback';

/** A server needs the user to sign in, which only `forge mcp login <server>` does. */
export class McpLoginRequiredError extends ForgeError {
  static override readonly errorCode = 'mcp_login_required';
  readonly server: string;

  constructor(server: string) {
    super({
      code: McpLoginRequiredError.errorCode,
      message: `MCP server "${server}" needs a login: run \`forge mcp login ${server}\`, then start Forge again.`,
      isRetryable: false,
    });
    this.name = 'McpLoginRequiredError';
    this.server = server;
  }
}

export interface OAuthProviderOptions {
  readonly config: McpRemoteServerConfig;
  readonly files: McpCredentialFiles;
  /** During `forge mcp login`: where the browser is sent back to, and what to do with the address to open. */
  readonly login?: { readonly redirectUrl: string; readonly openAuthorizationUrl: (url: URL) => void };
  readonly now?: () => number;
}

/** The SDK's OAuth client provider, keeping a server's login in its credential file. */
export interface ForgeOAuthProvider extends OAuthClientProvider {
  /** The `state` sent with the last authorization request, to check the redirect against. */
  readonly expectedState: string | undefined;
  /** True when the stored access token expires within {@link REFRESH_BEFORE_EXPIRY_MS} and can be refreshed. */
  needsRefresh(): boolean;
  /** Forgets the stored tokens (the client registration is kept). */
  forgetTokens(): Promise<void>;
}

/**
 * An OAuth client provider for one remote server. Outside a login it never starts an
 * authorization: wherever the SDK would register a client or send the user to sign in, it throws
 * {@link McpLoginRequiredError}, whose message names the command to run. Tokens are refreshed
 * through the stored refresh token.
 */
export async function createOAuthProvider(options: OAuthProviderOptions): Promise<ForgeOAuthProvider> {
  const { config, files } = options;
  const now = options.now ?? Date.now;
  let stored: StoredCredentials = (await files.load(config.name, config.url)) ?? {
    schemaVersion: 1,
    serverUrl: config.url,
  };
  let expectedState: string | undefined;
  const update = async (change: Partial<StoredCredentials>) => {
    stored = { ...stored, ...change };
    await files.save(config.name, stored);
  };
  const redirectUrl = options.login?.redirectUrl ?? DEFAULT_REDIRECT_URL;
  const preconfigured: OAuthClientInformationMixed | undefined =
    config.oauth?.clientId === undefined ? undefined : { client_id: config.oauth.clientId };
  const scope = config.oauth?.scopes?.join(' ');
  const metadata: OAuthClientMetadata = {
    client_name: 'Forge',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
  };

  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    get expectedState() {
      return expectedState;
    },
    state: () => {
      expectedState = randomBytes(16).toString('hex');
      return expectedState;
    },
    clientInformation: () => {
      const known = stored.clientInformation ?? preconfigured;
      if (known === undefined && options.login === undefined) throw new McpLoginRequiredError(config.name);
      return known;
    },
    saveClientInformation: (information) => update({ clientInformation: information }),
    tokens: () => stored.tokens,
    saveTokens: (tokens: OAuthTokens) =>
      update({
        tokens,
        ...(tokens.expires_in === undefined
          ? { expiresAt: undefined }
          : { expiresAt: now() + tokens.expires_in * 1000 }),
        codeVerifier: undefined,
      }),
    redirectToAuthorization: (url) => {
      if (options.login === undefined) throw new McpLoginRequiredError(config.name);
      options.login.openAuthorizationUrl(url);
    },
    saveCodeVerifier: (verifier) => update({ codeVerifier: verifier }),
    codeVerifier: () => {
      if (stored.codeVerifier === undefined) throw new McpLoginRequiredError(config.name);
      return stored.codeVerifier;
    },
    saveDiscoveryState: (state: OAuthDiscoveryState) => update({ discoveryState: state }),
    discoveryState: () => stored.discoveryState,
    invalidateCredentials: async (scopeOf) => {
      if (scopeOf === 'all' || scopeOf === 'tokens') await update({ tokens: undefined, expiresAt: undefined });
      if (scopeOf === 'all' || scopeOf === 'client') await update({ clientInformation: undefined });
      if (scopeOf === 'all' || scopeOf === 'discovery') await update({ discoveryState: undefined });
      if (scopeOf === 'all' || scopeOf === 'verifier') await update({ codeVerifier: undefined });
    },
    needsRefresh: () =>
      stored.tokens?.refresh_token !== undefined &&
      stored.expiresAt !== undefined &&
      stored.expiresAt - now() < REFRESH_BEFORE_EXPIRY_MS,
    forgetTokens: () => update({ tokens: undefined, expiresAt: undefined, codeVerifier: undefined }),
  };
}

/**
 * The provider for connecting to a remote server outside a login, its token refreshed first when
 * it is about to expire. Undefined when the server has a configured `Authorization` header. A
 * failed refresh is not thrown: connecting then reports that a login is needed.
 */
export async function connectionAuthProvider(
  config: McpRemoteServerConfig,
  files: McpCredentialFiles,
): Promise<ForgeOAuthProvider | undefined> {
  if (Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) return undefined;
  const provider = await createOAuthProvider({ config, files });
  if (provider.needsRefresh()) await auth(provider, { serverUrl: config.url }).catch(() => undefined);
  return provider;
}
