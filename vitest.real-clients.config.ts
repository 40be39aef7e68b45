import { defineConfig } from "vitest/config";

/** `npm run test:real-clients`: the live real-client cases (opt-in; never part of `npm test`). */
export default defineConfig({
  test: {
    include: ["test/real-clients/**/*.rc.ts"],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: "forks",
    fileParallelism: false,
  },
});
