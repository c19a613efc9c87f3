import { defineWorkspace } from "vitest/config"

const packages = ["domain", "runner", "http", "server", "client"] as const

export default defineWorkspace(
  packages.map((name) => ({
    esbuild: { target: "es2022" },
    test: {
      name,
      root: `./packages/${name}`,
      include: ["test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 180_000
    }
  }))
)
