import { describe, expect, it } from 'vitest';
import { completeSlashCommand, findSlashCommand } from './slash-commands.js';

describe('slash commands', () => {
  it('finds a command and its argument', () => {
    const found = findSlashCommand('  /help  me please ');
    expect('command' in found && found.command.name).toBe('help');
    expect('command' in found && found.argument).toBe('me please');
  });

  it('names an unknown command', () => {
    expect(findSlashCommand('/frobnicate now')).toEqual({ unknown: 'frobnicate' });
  });

  it('completes command names only at the start of a slash input', () => {
    expect(completeSlashCommand('/e')).toEqual([['/exit'], '/e']);
    expect(completeSlashCommand('/')[0]).toEqual([
      '/help',
      '/sessions',
      '/resume',
      '/new',
      '/compact',
      '/checkpoint',
      '/context',
      '/model',
      '/mode',
      '/permissions',
      '/mcp',
      '/exit',
    ]);
    expect(completeSlashCommand('/re')).toEqual([['/resume'], '/re']);
    expect(completeSlashCommand('hello /e')).toEqual([[], 'hello /e']);
    expect(completeSlashCommand('/exit now')).toEqual([[], '/exit now']);
    expect(completeSlashCommand('/mo')).toEqual([['/model', '/mode'], '/mo']);
  });
});
