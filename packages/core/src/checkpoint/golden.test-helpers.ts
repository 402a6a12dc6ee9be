import { expect } from 'vitest';

/**
 * Compares `actual` byte for byte with a golden file next to the test (`relativePath`), read and
 * written through vitest's snapshot environment. `UPDATE_GOLDEN=1` rewrites the file instead; a
 * missing file fails with the command that creates it.
 */
export async function expectGolden(actual: string, relativePath: string): Promise<void> {
  const state = expect.getState();
  const environment = state.snapshotState.environment;
  const path = await environment.resolveRawPath(state.testPath ?? '', relativePath);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    await environment.saveSnapshotFile(path, actual);
    return;
  }
  const expected = await environment.readSnapshotFile(path);
  expect(
    expected,
    `golden file ${relativePath} is missing: run UPDATE_GOLDEN=1 npx vitest run packages/core/src/checkpoint`,
  ).not.toBeNull();
  expect(
    actual,
    `${relativePath} differs; if the change is intended, rerun with UPDATE_GOLDEN=1 and review the diff`,
  ).toBe(expected);
}
