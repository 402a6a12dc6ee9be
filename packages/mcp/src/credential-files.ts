import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@forge/bounded-read';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { z } from 'zod';

/** What Forge keeps of one server's OAuth login, bound to the server's URL. */
export interface StoredCredentials {
  readonly schemaVersion: 1;
  readonly serverUrl: string;
  readonly clientInformation?: OAuthClientInformationMixed | undefined;
  readonly tokens?: OAuthTokens | undefined;
  /** When the access token expires (ms since the epoch), from `expires_in` at the time it was saved. */
  readonly expiresAt?: number | undefined;
  readonly codeVerifier?: string | undefined;
  readonly discoveryState?: OAuthDiscoveryState | undefined;
}

const storedSchema = z
  .object({
    schemaVersion: z.literal(1),
    serverUrl: z.string(),
    clientInformation: z.looseObject({ client_id: z.string() }).optional(),
    tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
    expiresAt: z.number().optional(),
    codeVerifier: z.string().optional(),
    discoveryState: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
  })
  .loose();

/**
 * The OAuth logins of remote MCP servers, one file per server in `directory`
 * (`FORGE_HOME/mcp-auth/<server>.json`): the directory 0700, each file 0600, written atomically.
 */
export class McpCredentialFiles {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** The file of `server`'s login. */
  fileOf(server: string): string {
    return path.join(this.directory, `${server}.json`);
  }

  /** The stored login of `server` at `serverUrl`; undefined when none is stored, it is unreadable, or it is for another URL. */
  async load(server: string, serverUrl: string): Promise<StoredCredentials | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileOf(server), 'utf8');
    } catch {
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    const checked = storedSchema.safeParse(parsed);
    if (!checked.success || checked.data.serverUrl !== serverUrl) return undefined;
    return checked.data as unknown as StoredCredentials;
  }

  async save(server: string, credentials: StoredCredentials): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700);
    await writeFileAtomic(this.fileOf(server), `${JSON.stringify(credentials, null, 2)}\n`, {
      mode: 0o600,
      syncDirectory: true,
    });
  }

  /** Removes `server`'s login; false when there was none. */
  async remove(server: string): Promise<boolean> {
    try {
      await readFile(this.fileOf(server));
    } catch {
      return false;
    }
    await rm(this.fileOf(server), { force: true });
    return true;
  }
}
