import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@forge/source', ...defaultServerConditions] } },
  resolve: { conditions: ['@forge/source'] },
  test: {
    include: ['scripts/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'evals/src/**/*.test.ts', 'tests/*/src/**/*.test.ts'],
    testTimeout: 20_000,
    globalSetup: ['packages/tools/src/testing/vitest-global-setup.ts'],
  },
});
