import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    // Tests spawn real processes and open real SQLite files: give them room on a 2-core machine.
    testTimeout: 30_000,
    globalSetup: ["tests/support/global-setup.ts"],
    hookTimeout: 60_000,
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" }
  }
})
