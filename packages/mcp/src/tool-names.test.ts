import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignToolNames, TOOL_NAME_PATTERN, type ToolNameRequest } from './tool-names.js';

describe('assignToolNames', () => {
  it('keeps <server>__<tool> when it is already valid', () => {
    expect(
      assignToolNames([
        { server: 'files', tool: 'read' },
        { server: 'git', tool: 'log-graph' },
      ]),
    ).toEqual(['files__read', 'git__log-graph']);
  });

  it('replaces characters providers reject and keeps clashing names apart, the unchanged one winning', () => {
    const names = assignToolNames([
      { server: 'docs', tool: 'search.v2' },
      { server: 'docs', tool: 'search_v2' },
      { server: 'docs', tool: 'ünïcode tool' },
    ]);
    expect(names[1]).toBe('docs__search_v2');
    expect(names[0]).toMatch(/^docs__search_v2_[0-9a-f]{8}$/);
    expect(names[2]).toBe('docs___n_code_tool');
  });

  it('shortens long names with a hash, so two long names sharing a prefix stay distinct', () => {
    const long = 'a'.repeat(80);
    const names = assignToolNames([
      { server: 'srv', tool: `${long}1` },
      { server: 'srv', tool: `${long}2` },
    ]);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(names[0]).not.toBe(names[1]);
  });

  it('never takes a reserved (built-in) name', () => {
    expect(assignToolNames([{ server: 'x', tool: 'y' }], ['x__y'])[0]).toMatch(/^x__y_[0-9a-f]{8}$/);
  });

  const request: fc.Arbitrary<ToolNameRequest> = fc.record({
    server: fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/),
    tool: fc.oneof(
      fc.string({ minLength: 1, maxLength: 90 }),
      fc.constantFrom('a', 'a.b', 'a_b', 'a b', 'x'.repeat(70)),
    ),
  });

  it('always gives valid names, unique and distinct from the reserved ones', () => {
    fc.assert(
      fc.property(
        fc.array(request, { maxLength: 30 }),
        fc.array(fc.constantFrom('read_file', 'a__a', 'a__a_b'), { maxLength: 3 }),
        (requests, reserved) => {
          const names = assignToolNames(requests, reserved);
          expect(names).toHaveLength(requests.length);
          for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
          expect(new Set(names).size).toBe(names.length);
          for (const name of names) expect(reserved).not.toContain(name);
        },
      ),
    );
  });

  it('names each tool the same whatever order the servers listed them in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(request, { selector: (item) => `${item.server}\u0000${item.tool}`, maxLength: 20 }),
        fc.integer(),
        (requests, seed) => {
          const shuffled = [...requests].sort(
            (left, right) => ((left.tool.length * 31 + seed) % 7) - ((right.tool.length * 31 + seed) % 7),
          );
          const byKey = (items: readonly ToolNameRequest[], names: readonly string[]) =>
            new Map(items.map((item, index) => [`${item.server}\u0000${item.tool}`, names[index]]));
          expect(byKey(shuffled, assignToolNames(shuffled))).toEqual(byKey(requests, assignToolNames(requests)));
        },
      ),
    );
  });
});
