import { requestFromActiveView } from '../engine/active-view.js';
import type { MessageItem } from './rollout-schema.js';

/*
 * Codex puts context of its own into the conversation as user or developer messages: the
 * environment description, AGENTS.md and user instructions, skill and permission notes, its
 * compaction summaries. None of them is something the user said, so the importer leaves them out
 * of the transcript and never takes the task from them.
 */

const injectedOpeningTags = [
  '<environment_context',
  '<user_instructions',
  '<instructions>',
  '<skills_instructions',
  '<permissions instructions',
  '<collaboration_mode',
  '<apps_instructions',
  '<personality_spec',
  '<environments_instructions',
  '<model_switch',
  '<persistent_mode',
  '<codex_internal_context',
  '<user_shell_command',
  '<turn_aborted',
  '<subagent_notification',
  '<recommended_plugins',
  '<token_budget',
  '<context_window_guidance',
  '<realtime_conversation',
  '<git_attribution',
  '<multi_agent',
  '<plugins_instructions',
  '<tools>',
];

const injectedPrefixes = [
  '# AGENTS.md instructions for ',
  'Another language model started to solve this problem and produced a summary of its thinking process.',
];

/** True when a user-role text was put there by the Codex harness rather than typed by the user. */
export function isHarnessInjected(text: string): boolean {
  const trimmed = text.trimStart();
  if (injectedPrefixes.some((prefix) => trimmed.startsWith(prefix))) return true;
  if (!trimmed.startsWith('<')) return false;
  const lower = trimmed.slice(0, 64).toLowerCase();
  return injectedOpeningTags.some((tag) => lower.startsWith(tag));
}

/** Roles whose messages always come from the harness, never from the user. */
export function isHarnessRole(role: string): boolean {
  return role === 'developer' || role === 'system';
}

/**
 * What the user said in a user-role message: its text parts without harness-injected ones, and
 * for a turn Forge sent through the Codex engine only the request inside Forge's wrapper.
 * Undefined when nothing is left.
 */
export function spokenUserText(message: MessageItem): string | undefined {
  const parts = typeof message.content === 'string' ? [{ text: message.content }] : message.content;
  const spoken = parts.map((part) => part.text ?? '').filter((text) => text.length > 0 && !isHarnessInjected(text));
  if (spoken.length === 0) return undefined;
  const text = spoken.join('\n');
  return requestFromActiveView(text) ?? text;
}
