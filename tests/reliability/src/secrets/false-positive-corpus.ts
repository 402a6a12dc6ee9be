/*
 * Text that looks a little like a secret and is not one: the shell's working directory, limits and
 * counts named after passwords and tokens, words that contain a secret word, paths, code that
 * handles secrets without holding one, hashes. Redaction must leave every entry exactly as it is
 * (issue 17: `$PWD`'s value was stored as `[REDACTED:secret]`, so later turns saw mangled paths).
 */

/** Entries for a workspace at `workspace` (its path appears in them, as `pwd` prints it). */
export function falsePositiveCorpus(workspace: string): readonly string[] {
  return [
    `PWD=${workspace}`,
    `OLDPWD=${workspace}/..`,
    `cd $PWD/src && ls ${workspace}/src`,
    `pwd: ${workspace}`,
    'PASSWORD_MIN_LENGTH=8',
    'password_min_length: 8',
    'passwordMaxAgeDays: 90',
    'TOKEN_LIMIT=4096',
    'max_tokens: 1024',
    '"inputTokens": 1200, "outputTokens": 52, "total_tokens": 1252',
    'tokenEstimator: conservative',
    'token_type: bearer',
    'TOKEN_URL=https://auth.example.com/oauth/token',
    'tokenizer=o200k and tokenizers/index.ts call tokenize(text)',
    'the passenger list, a bypass road, a compass and a passport',
    'passthrough: true',
    'pass: 12\nfail: 0\nskipped: 3',
    'secretary: Alice Example',
    'secret_santa_list: gifts.csv',
    'secretName: db-credentials',
    'credentials: include',
    'fetch(url, { credentials: "same-origin" })',
    'auth: none',
    'withCredentials: false',
    'secrets: { env: ["GITHUB_TOKEN", "NPM_TOKEN"] }',
    'api_key_header: X-API-Key',
    'AccessKeyIdLength: 20',
    'src/auth/password-reset.ts docs/secret-management.md ~/.ssh/id_rsa.pub lib/tokens/index.ts',
    'const password = getPassword();',
    'if (token == null) return undefined;',
    'interface Login { user: string; token: string; }',
    'const apiKey = process.env.API_KEY;',
    'password: req.body.password',
    'const token = await fetchToken();',
    'read -s PASSWORD; if [ -z "$PASSWORD" ]; then exit 1; fi',
    'PASSWORD=$(cat /run/secrets/db)',
    'export GITHUB_TOKEN=${GITHUB_TOKEN:-}',
    'DB_PASSWORD=<set in the vault>',
    'session_id: 123e4567-e89b-12d3-a456-426614174000',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  package.tgz',
    '"integrity": "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"',
    'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
    // Issue 30: near the new shapes (flags with a value, -u, Basic, elements, colons, search hits).
    'git push -u origin main && docker run -u 1000:1000 app',
    'Basic authentication is disabled; see Basic usage below',
    'forge run --token-limit 4096 --password-file ./db.pass',
    '<user>alice</user><passwordPolicy>strict</passwordPolicy>',
    'std::string token; at 12:30:00 visit http://example.com:8080/',
    'src/index.ts:12: export function redactAll(text: string): string {',
    'docs/paths.md:3: /usr/local/lib/node_modules/forge/dist/index.js',
  ];
}
