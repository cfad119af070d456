import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    // Tests spawn real processes and open real SQLite files: a timeout only catches a hang, so it leaves room
    // for a 2-core machine that other work keeps busy (one process test can then take ten times as long).
    testTimeout: 120_000,
    globalSetup: ["tests/support/global-setup.ts"],
    hookTimeout: 180_000,
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" }
  }
})
