import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpRemoteServerConfig } from './config.js';
import { McpCredentialFiles } from './credential-files.js';
import {
  connectionAuthProvider,
  createOAuthProvider,
  McpLoginRequiredError,
  REFRESH_BEFORE_EXPIRY_MS,
} from './oauth-provider.js';

let home: string;
let files: McpCredentialFiles;
const config: McpRemoteServerConfig = { name: 'docs', url: 'https://docs.example.com/mcp' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'forge-mcp-auth-'));
  files = new McpCredentialFiles(join(home, 'mcp-auth'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('the OAuth provider of a remote server', () => {
  it('outside a login never registers or redirects: it throws the error naming forge mcp login', async () => {
    const provider = await createOAuthProvider({ config, files });
    expect(() => provider.clientInformation()).toThrow(McpLoginRequiredError);
    expect(() => provider.redirectToAuthorization(new URL('https://auth.example.com/authorize'))).toThrow(
      'MCP server "docs" needs a login: run `forge mcp login docs`',
    );
  });

  it('keeps tokens in a 0600 file in a 0700 directory, bound to the server URL', async () => {
    const provider = await createOAuthProvider({ config, files, now: () => 1_000 });
    await provider.saveClientInformation?.({ client_id: 'forge-client' });
    await provider.saveTokens({
      access_token: 'access-1',
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: 'r1',
    });
    expect((await stat(files.fileOf('docs'))).mode & 0o777).toBe(0o600);
    expect((await stat(files.directory)).mode & 0o777).toBe(0o700);
    expect((await files.load('docs', config.url))?.expiresAt).toBe(1_000 + 3_600_000);
    expect(await files.load('docs', 'https://elsewhere.example.com/mcp')).toBeUndefined();
    const again = await createOAuthProvider({ config, files });
    expect((await again.tokens())?.access_token).toBe('access-1');
    expect(await files.remove('docs')).toBe(true);
    expect(await files.remove('docs')).toBe(false);
  });

  it('needs a refresh only when a refresh token exists and the access token expires within the window', async () => {
    let now = 0;
    const provider = await createOAuthProvider({ config, files, now: () => now });
    await provider.saveTokens({ access_token: 'a', token_type: 'bearer', expires_in: 3600, refresh_token: 'r' });
    expect(provider.needsRefresh()).toBe(false);
    now = 3_600_000 - REFRESH_BEFORE_EXPIRY_MS + 1;
    expect(provider.needsRefresh()).toBe(true);
    await provider.saveTokens({ access_token: 'b', token_type: 'bearer', expires_in: 1 });
    expect(provider.needsRefresh()).toBe(false);
  });

  it('reads a damaged file as no login, and gives no provider to a server with its own Authorization header', async () => {
    await files.save('docs', { schemaVersion: 1, serverUrl: config.url });
    await writeFile(files.fileOf('docs'), '{ not json');
    expect(await files.load('docs', config.url)).toBeUndefined();
    const withHeader = { ...config, headers: { Authorization: { env: 'DOCS_TOKEN' } } };
    expect(await connectionAuthProvider(withHeader, files)).toBeUndefined();
  });
});
