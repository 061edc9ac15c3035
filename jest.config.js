// Two projects: service tests against real stores started once per run, and end-to-end
// tests against the whole stack started once per run as real processes.
const transform = { "^.+\\.tsx?$": ["@swc/jest", { jsc: { target: "es2022" } }] };
const moduleNameMapper = {
  "^@odds/platform$": "<rootDir>/services/platform/src/index.ts",
  "^@odds/proto$": "<rootDir>/proto/index.ts",
  "^@odds/local$": "<rootDir>/deploy/local/src/index.ts",
};
const common = { rootDir: __dirname, transform, moduleNameMapper, testEnvironment: "node" };

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: "services",
      testMatch: [
        "<rootDir>/services/*/src/**/*.test.ts",
        "<rootDir>/services/*/test/**/*.test.ts",
        "<rootDir>/deploy/local/src/**/*.test.ts",
        "<rootDir>/proto/contract/**/*.test.ts",
      ],
      globalSetup: "<rootDir>/deploy/local/src/testing/stores-setup.ts",
      globalTeardown: "<rootDir>/deploy/local/src/testing/stores-teardown.ts",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/test/**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/deploy/"],
      globalSetup: "<rootDir>/test/support/stack-setup.ts",
      globalTeardown: "<rootDir>/test/support/stack-teardown.ts",
    },
    {
      // Offline checks of the chart, the Envoy config and skaffold; no stores, no stack.
      ...common,
      displayName: "deploy",
      testMatch: ["<rootDir>/test/deploy/**/*.test.ts"],
    },
  ],
};
