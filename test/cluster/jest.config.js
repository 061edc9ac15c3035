// Jest configuration of `npm run test:cluster` only (deploy/cluster/test.sh): the e2e contract
// checks and the cluster checks against a release installed on the local cluster.
const { join } = require("node:path");
const root = join(__dirname, "..", "..");
module.exports = {
  rootDir: root,
  testTimeout: 300000,
  transform: { "^.+\\.tsx?$": ["@swc/jest", { jsc: { target: "es2022" } }] },
  moduleNameMapper: {
    "^@odds/platform$": "<rootDir>/services/platform/src/index.ts",
    "^@odds/proto$": "<rootDir>/proto/index.ts",
    "^@odds/local$": "<rootDir>/deploy/local/src/index.ts",
  },
  // Only the sources: a CLUSTER_CACHE inside the checkout (.local/...) holds image layers whose
  // package.json files would collide with the workspaces' in Jest's module map.
  roots: ["<rootDir>/test", "<rootDir>/services", "<rootDir>/proto", "<rootDir>/deploy/local"],
  testEnvironment: "node",
  testMatch: ["<rootDir>/test/edge/contract.test.ts", "<rootDir>/test/cluster/**/*.test.ts"],
  globalSetup: "<rootDir>/test/cluster/setup.ts",
  globalTeardown: "<rootDir>/test/cluster/teardown.ts",
};
