import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { COMPATIBLE_TOKENIZER_FAMILIES as CONFIG_FAMILIES } from '@forge/config';
import type { ForgeEvent, ModelRequest } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { COMPATIBLE_TOKENIZER_FAMILIES } from '@forge/model-compatible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { CalibrationHub } from '@forge/agent';
import { calibrationLine, calibrationReport } from './calibration-report.js';

const request: ModelRequest = {
  instructions: 'Be brief.',
  history: [],
  currentRequest: { role: 'user', content: 'hello there '.repeat(200) },
  continuation: [],
  tools: [],
};

function reconciled(
  model: { provider: string; modelId: string },
  estimatedTokens: number,
  reportedInputTokens: number,
): ForgeEvent {
  return {
    type: 'context.usage.reconciled',
    step: 1,
    model,
    estimatedTokens,
    reportedInputTokens,
    errorTokens: estimatedTokens - reportedInputTokens,
    undercountBeyondBuffer: reportedInputTokens - estimatedTokens > 100,
    accuracy: {
      ...model,
      samples: 1,
      meanErrorPercent: 0,
      meanAbsoluteErrorPercent: 0,
      maxUndercountTokens: 0,
      undercountsBeyondBuffer: 0,
      unsafeForAutoCompaction: false,
    },
  };
}

describe('CalibrationHub', () => {
  let home: Awaited<ReturnType<typeof temporaryDirectory>>;
  beforeEach(async () => {
    home = await temporaryDirectory('forge-calibration-hub-');
  });
  afterEach(async () => {
    await home.remove();
  });

  it('scales estimates once an undercount passed the buffer, says so once, and learns from the raw estimate', async () => {
    const notices: string[] = [];
    const hub = new CalibrationHub({ forgeHome: home.path, bufferTokens: 100, notice: (line) => notices.push(line) });
    const scripted = new ScriptedModel([]);
    // The scripted model counts conservatively, so its correction is not capped as an exact tokenizer's would be.
    const model = await hub.wrap(scripted, { name: 'deepseek:deepseek-chat', counter: 'conservative' });
    const raw = (await model.estimateRequestTokens(request)).tokens;
    expect(notices).toEqual([]);
    hub.observe(reconciled(scripted, raw, raw + 500));
    const corrected = await model.estimateRequestTokens(request);
    expect(corrected.tokens).toBeGreaterThanOrEqual(raw + 500);
    expect(corrected.confidence).toBe('estimated');
    // The next sample is recorded against the raw estimate, not the corrected one.
    hub.observe(reconciled(scripted, corrected.tokens, raw + 500));
    await model.estimateRequestTokens(request);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^deepseek:deepseek-chat has undercounted requests by more than the 100-token safety buffer \(1 of 1 recorded\); this session budgets and compacts with its estimates × [\d.]+ \(the 90th-percentile measured ratio\); forge models calibration reset deepseek:deepseek-chat forgets it$/,
    );
    await hub.flush();
    const stored = JSON.parse(await readFile(path.join(home.path, 'calibration.json'), 'utf8')) as {
      models: Record<string, { samples: number[][] }>;
    };
    expect(stored.models['deepseek:deepseek-chat']?.samples).toEqual([
      [raw, raw + 500],
      [raw, raw + 500],
    ]);
  });

  it('offers, and never applies, a correction for a conservative estimate that always overcounts', async () => {
    const hub = new CalibrationHub({ forgeHome: home.path, bufferTokens: 100, notice: () => {} });
    const scripted = new ScriptedModel([]);
    const identity = { name: 'compatible:lab', counter: 'conservative' };
    const model = await hub.wrap(scripted, identity);
    const raw = (await model.estimateRequestTokens(request)).tokens;
    for (let index = 0; index < 5; index += 1) hub.observe(reconciled(scripted, raw, Math.round(raw / 1.4)));
    expect((await model.estimateRequestTokens(request)).tokens).toBe(raw);
    const report = calibrationReport(await hub.view(identity), {
      configPath: 'models.0',
      configFile: '/home/u/.forge/config.json',
    });
    expect(report?.offer).toEqual({
      key: 'models.0.estimateScale',
      value: Math.ceil((Math.round(raw / 1.4) / raw) * 100) / 100,
      file: '/home/u/.forge/config.json',
    });
    expect(calibrationLine(report)).toMatch(
      /^5 requests: mean error \+\d+\.\d%, worst \+\d+\.\d%; consistently high: set models\.0\.estimateScale to 0\.\d+ in \/home\/u\/\.forge\/config\.json to count closer$/,
    );
  });
});

describe('tokenizer families', () => {
  it('are the same in the configuration schema and in the adapter', () => {
    expect([...CONFIG_FAMILIES]).toEqual([...COMPATIBLE_TOKENIZER_FAMILIES]);
  });
});
