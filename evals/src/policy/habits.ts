import { InvalidInputError } from '@forge/core';

/*
 * How diligently the policy agent uses Forge's context tools. Real models differ: some note every
 * fact they read, many skip memory tools they are offered, most do it now and then. The task and
 * the rules of what counts as known (knowledge.ts) are the same for every agent; only the habit of
 * calling `checkpoint_note` and `request_compaction` changes.
 */

/** The agents `forge eval --agent` can choose. */
const AGENT_NAMES = ['cooperative', 'no-notes', 'sloppy'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export const DEFAULT_AGENT: AgentName = 'cooperative';

/** What one agent notes and asks for. */
export interface AgentHabits {
  readonly name: AgentName;
  /**
   * Whether the agent notes `item` (`fact:<key>`, `constraint:<id>`, `approach:<id>`) when
   * `checkpoint_note` is offered.
   */
  notes(item: string): boolean;
  /**
   * Whether, in `turn`, the agent asks for compaction once its request fills this share of its
   * window; an agent that asks at all also asks in the step where it catches up on earlier turns.
   */
  requestsCompactionAt(turn: number): number | undefined;
}

/** Share of the window past which a cooperative agent asks for a checkpoint before answering. */
export const REQUEST_COMPACTION_FILL = 0.75;

/** The seed of the sloppy agent's choices: fixed, so every run of a fixture makes the same ones. */
const SLOPPY_SEED = 'forge-eval-sloppy-1';

/** FNV-1a of the text with a final avalanche (FNV's low bits alone follow the characters' parity): stable everywhere. */
function stableHash(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The habits of `name` for the fixture `fixtureId` (the sloppy agent's choices depend on it). */
export function agentHabits(name: AgentName, fixtureId: string): AgentHabits {
  switch (name) {
    case 'cooperative':
      return { name, notes: () => true, requestsCompactionAt: () => REQUEST_COMPACTION_FILL };
    case 'no-notes':
      return { name, notes: () => false, requestsCompactionAt: () => undefined };
    case 'sloppy': {
      const heads = (item: string) => stableHash(`${SLOPPY_SEED}/${fixtureId}/${item}`) < 0x80000000;
      return {
        name,
        notes: heads,
        requestsCompactionAt: (turn) => (heads(`turn:${turn}`) ? REQUEST_COMPACTION_FILL : undefined),
      };
    }
  }
}

/**
 * The agents `--agent` names: one of {@link AGENT_NAMES}, a comma-separated list of them, or
 * `all`. An unknown name is an input error that lists the choices.
 */
export function parseAgentNames(value: string | undefined): AgentName[] {
  if (value === undefined || value.trim() === '') return [DEFAULT_AGENT];
  if (value.trim() === 'all') return [...AGENT_NAMES];
  const names: AgentName[] = [];
  for (const part of value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)) {
    const found = AGENT_NAMES.find((name) => name === part);
    if (found === undefined)
      throw new InvalidInputError({
        message: `Unknown agent "${part}"; choose from ${[...AGENT_NAMES, 'all'].join(', ')}.`,
      });
    if (!names.includes(found)) names.push(found);
  }
  return names;
}

/** What each agent does, in one line, for the reports. */
export const AGENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  cooperative:
    'notes every fact it reads, each constraint the user states and each failed approach (catching up when the tool appears); asks for a checkpoint once a request is 75 % full, or right after catching up',
  'no-notes': 'never calls checkpoint_note or request_compaction, like a model that ignores memory tools',
  sloppy:
    'notes about half of what it learns and asks for a checkpoint on about half the turns, chosen by a seeded hash of each item',
  live: 'a real model: its own habits',
};
