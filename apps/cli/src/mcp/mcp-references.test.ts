import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { McpServers } from '@forge/mcp';
import { expandMcpReferences, findResourceMentions, parsePromptCommand } from './mcp-references.js';

const servers = new Set(['docs', 'tracker']);

describe('findResourceMentions', () => {
  it('finds @server:uri of configured servers, without sentence punctuation, each once', () => {
    expect(
      findResourceMentions('Compare @docs:file:///a.md and @tracker:issue://42, then @docs:file:///a.md.', servers),
    ).toEqual([
      { server: 'docs', uri: 'file:///a.md' },
      { server: 'tracker', uri: 'issue://42' },
    ]);
  });

  it('ignores unknown servers, e-mail addresses and mentions inside words', () => {
    expect(findResourceMentions('mail me@docs:x or @other:thing or a@docs:y', servers)).toEqual([]);
  });

  it('never throws, and every mention it finds is written in the text as @server:uri', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('docs', 'tracker', 'other'), fc.string(), (before, server, after) => {
        const text = `${before} @${server}:${after}`;
        for (const mention of findResourceMentions(text, servers)) {
          expect(servers.has(mention.server)).toBe(true);
          expect(text).toContain(`@${mention.server}:${mention.uri}`);
          expect(mention.uri).not.toMatch(/\s/);
        }
      }),
    );
  });

  it('finds nothing in text without an @', () => {
    fc.assert(
      fc.property(
        fc.string().map((text) => text.replaceAll('@', '')),
        (text) => {
          expect(findResourceMentions(text, servers)).toEqual([]);
        },
      ),
    );
  });
});

describe('parsePromptCommand', () => {
  it('reads named and positional arguments, quoted values whole', () => {
    expect(parsePromptCommand('/docs:summarise topic="release notes" short', servers)).toEqual({
      server: 'docs',
      prompt: 'summarise',
      named: { topic: 'release notes' },
      positional: ['short'],
    });
  });

  it('is undefined for built-in commands and servers that are not configured', () => {
    expect(parsePromptCommand('/context', servers)).toBeUndefined();
    expect(parsePromptCommand('/other:prompt', servers)).toBeUndefined();
    expect(parsePromptCommand('docs:prompt', servers)).toBeUndefined();
  });

  it('keeps every argument word it is given, named or positional', () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), fc.array(fc.tuple(word, word), { maxLength: 4 }), (bare, pairs) => {
        const named = Object.fromEntries(pairs.map(([key, value]) => [`k${key}`, value]));
        const text = ['/docs:run', ...bare, ...Object.entries(named).map(([key, value]) => `${key}=${value}`)].join(
          ' ',
        );
        const parsed = parsePromptCommand(text, servers);
        expect(parsed?.positional).toEqual(bare);
        expect(parsed?.named).toEqual(named);
      }),
    );
  });
});

describe('expandMcpReferences', () => {
  const secret = 'sk-resource-secret-0123456789abcdef';
  const servers = {
    servers: [{ name: 'docs', status: 'ready', toolNames: [] }],
    readResource: async (_server: string, uri: string) => ({ text: `${uri} says ${secret}`, truncated: false }),
  } as unknown as McpServers;

  it('attaches each resource after the request, marked with its server and URI, redacted as tool output is', async () => {
    const expanded = await expandMcpReferences('Read @docs:file:///a.md please', {
      mcp: servers,
      redact: (text) => text.replaceAll(secret, '[REDACTED:test]'),
    });
    expect(expanded.request).toBe(
      'Read @docs:file:///a.md please\n\n<mcp-resource server="docs" uri="file:///a.md">\nfile:///a.md says [REDACTED:test]\n</mcp-resource>',
    );
    expect(expanded.attached).toEqual([{ server: 'docs', uri: 'file:///a.md' }]);
  });

  it('leaves a request without references, or without servers, as it is', async () => {
    const redact = (text: string) => text;
    expect((await expandMcpReferences('mail me@docs:x', { mcp: servers, redact })).request).toBe('mail me@docs:x');
    expect((await expandMcpReferences('@docs:x', { mcp: undefined, redact })).request).toBe('@docs:x');
  });
});
