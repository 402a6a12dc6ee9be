import type { ToolCallRequest, ToolRisk } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { approvalLevel, approvalProfiles, createApprovalGate, type ConfirmAnswer } from './approval.js';

const never = new AbortController().signal;

function request(toolName: string, risk: ToolRisk): ToolCallRequest {
  return { toolCallId: `call_${toolName}`, toolName, input: {}, risk, summary: `${toolName} something` };
}

/** A confirm callback that plays back answers and records what it was asked. */
function scriptedConfirm(...answers: ConfirmAnswer[]) {
  const asked: string[] = [];
  const confirm = async (call: ToolCallRequest): Promise<ConfirmAnswer> => {
    asked.push(call.toolName);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected confirmation for ${call.toolName}`);
    return answer;
  };
  return { asked, confirm };
}

describe('approval profiles', () => {
  it('assign each risk the documented level', () => {
    const table = Object.fromEntries(
      approvalProfiles.map((profile) => [
        profile,
        (['read', 'write', 'execute'] as const).map((risk) => approvalLevel(profile, risk)),
      ]),
    );
    expect(table).toEqual({
      'read-only': ['allow', 'deny', 'deny'],
      ask: ['allow', 'confirm', 'confirm'],
      'workspace-write': ['allow', 'allow', 'confirm'],
      'workspace-auto': ['allow', 'allow', 'allow'],
    });
  });

  it('read-only runs reads and refuses writes and commands without asking', async () => {
    const { asked, confirm } = scriptedConfirm();
    const gate = createApprovalGate({ profile: 'read-only', confirm });
    await expect(gate.check(request('read_file', 'read'), never)).resolves.toEqual({ kind: 'allow' });
    await expect(gate.check(request('edit_file', 'write'), never)).resolves.toEqual({
      kind: 'deny',
      reason:
        'the read-only approval profile does not allow write tools such as edit_file; the user can choose a profile that does',
    });
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toMatchObject({ kind: 'deny' });
    expect(asked).toEqual([]);
  });

  it('ask confirms writes and commands; workspace-write confirms only commands', async () => {
    const ask = scriptedConfirm({ kind: 'once' }, { kind: 'once' });
    const askGate = createApprovalGate({ profile: 'ask', confirm: ask.confirm });
    await expect(askGate.check(request('read_file', 'read'), never)).resolves.toEqual({ kind: 'allow' });
    await expect(askGate.check(request('edit_file', 'write'), never)).resolves.toEqual({ kind: 'allow' });
    await expect(askGate.check(request('run_command', 'execute'), never)).resolves.toEqual({ kind: 'allow' });
    expect(ask.asked).toEqual(['edit_file', 'run_command']);

    const write = scriptedConfirm({ kind: 'once' });
    const writeGate = createApprovalGate({ profile: 'workspace-write', confirm: write.confirm });
    await expect(writeGate.check(request('edit_file', 'write'), never)).resolves.toEqual({ kind: 'allow' });
    await expect(writeGate.check(request('run_command', 'execute'), never)).resolves.toEqual({ kind: 'allow' });
    expect(write.asked).toEqual(['run_command']);
  });
});

describe('confirmation answers', () => {
  it('"once" allows only the call at hand', async () => {
    const { asked, confirm } = scriptedConfirm({ kind: 'once' }, { kind: 'deny' });
    const gate = createApprovalGate({ profile: 'ask', confirm });
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toEqual({ kind: 'allow' });
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toEqual({
      kind: 'deny',
      reason: 'the user declined it',
    });
    expect(asked).toEqual(['run_command', 'run_command']);
    expect(gate.grants()).toEqual([]);
  });

  it('"session" grants the tool until revoked, and only that tool', async () => {
    const { asked, confirm } = scriptedConfirm({ kind: 'session' }, { kind: 'once' }, { kind: 'deny' });
    const gate = createApprovalGate({ profile: 'ask', confirm });
    await gate.check(request('run_command', 'execute'), never);
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toEqual({ kind: 'allow' });
    await gate.check(request('edit_file', 'write'), never);
    expect(asked).toEqual(['run_command', 'edit_file']);
    expect(gate.grants()).toEqual(['run_command']);

    expect(gate.revoke('run_command')).toBe(true);
    expect(gate.revoke('run_command')).toBe(false);
    expect(gate.grants()).toEqual([]);
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toMatchObject({ kind: 'deny' });
    expect(asked).toEqual(['run_command', 'edit_file', 'run_command']);
  });

  it('keeps grants per gate: a new gate for the same session starts with none', async () => {
    const first = createApprovalGate({ profile: 'ask', confirm: scriptedConfirm({ kind: 'session' }).confirm });
    await first.check(request('run_command', 'execute'), never);
    const second = createApprovalGate({ profile: 'ask' });
    expect(second.grants()).toEqual([]);
    await expect(second.check(request('run_command', 'execute'), never)).resolves.toMatchObject({ kind: 'deny' });
  });

  it("puts the user's deny feedback into the reason the model sees", async () => {
    const { confirm } = scriptedConfirm({ kind: 'deny', feedback: '  use pnpm, not npm ' });
    const gate = createApprovalGate({ profile: 'workspace-write', confirm });
    await expect(gate.check(request('run_command', 'execute'), never)).resolves.toEqual({
      kind: 'deny',
      reason: 'the user said: use pnpm, not npm',
    });
  });

  it('passes the request and the signal to the confirm callback', async () => {
    const controller = new AbortController();
    let seen: [ToolCallRequest, AbortSignal] | undefined;
    const gate = createApprovalGate({
      profile: 'ask',
      confirm: async (call, signal) => {
        seen = [call, signal];
        return { kind: 'once' };
      },
    });
    const call = request('edit_file', 'write');
    await gate.check(call, controller.signal);
    expect(seen).toEqual([call, controller.signal]);
  });

  it('denies when the prompt returns no usable answer', async () => {
    const gate = createApprovalGate({
      profile: 'ask',
      confirm: async () => ({ kind: 'maybe' }) as unknown as ConfirmAnswer,
    });
    await expect(gate.check(request('edit_file', 'write'), never)).resolves.toEqual({
      kind: 'deny',
      reason: 'the confirmation prompt gave no usable answer',
    });
  });
});

describe('without a confirm callback (non-interactive)', () => {
  it('denies confirm-level calls and says how to allow them', async () => {
    const gate = createApprovalGate({ profile: 'ask' });
    await expect(gate.check(request('edit_file', 'write'), never)).resolves.toEqual({
      kind: 'deny',
      reason:
        'edit_file needs confirmation under the ask profile and this session cannot ask (non-interactive); run interactively to approve it, or use the workspace-write profile',
    });
    await expect(
      createApprovalGate({ profile: 'workspace-write' }).check(request('run_command', 'execute'), never),
    ).resolves.toEqual({
      kind: 'deny',
      reason:
        'run_command needs confirmation under the workspace-write profile and this session cannot ask (non-interactive); run interactively to approve it',
    });
    await expect(
      createApprovalGate({ profile: 'workspace-write' }).check(request('edit_file', 'write'), never),
    ).resolves.toEqual({ kind: 'allow' });
  });

  it('rejects an unknown profile name', () => {
    expect(() => createApprovalGate({ profile: 'yolo' as 'ask' })).toThrow(
      'Unknown approval profile "yolo"; use one of: read-only, ask, workspace-write, workspace-auto.',
    );
  });
});
